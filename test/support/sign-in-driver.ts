/**
 * A browser's part of a sign-in, over HTTP with fetch: follows redirects one by one, keeping cookies as a browser
 * on 127.0.0.1 would (by name; every test server is on that host, and cookies do not separate ports).
 */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Takes the response's Set-Cookie headers, with their attributes kept for the test to inspect. */
  take(response: Response): string[] {
    const set = response.headers.getSetCookie();
    for (const line of set) {
      const [pair = ''] = line.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      if (/max-age=0(;|$)/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return set;
  }
}

export interface Hop {
  url: string;
  status: number;
  location: string | undefined;
  setCookies: string[];
}

/** GETs `url` and its redirects until a response is not a redirect or the next URL satisfies `stopAt`. */
export async function follow(
  url: string,
  jar: CookieJar,
  stopAt: (next: URL) => boolean = () => false,
): Promise<{ hops: Hop[]; last: Response; next: string | undefined }> {
  const hops: Hop[] = [];
  let current = url;
  for (let count = 0; count < 20; count++) {
    const response = await fetch(current, { redirect: 'manual', headers: { cookie: jar.header() } });
    const setCookies = jar.take(response);
    const location = response.headers.get('location') ?? undefined;
    hops.push({ url: current, status: response.status, location, setCookies });
    if (response.status < 300 || response.status >= 400 || location === undefined) {
      return { hops, last: response, next: undefined };
    }
    await response.body?.cancel();
    const next = new URL(location, current);
    if (stopAt(next)) return { hops, last: response, next: next.href };
    current = next.href;
  }
  throw new Error(`more than 20 redirects from ${url}`);
}

/**
 * Begins a sign-in at the gateway and goes through the provider (which signs in whoever the test named) up to the
 * provider's redirect back: the callback URL, not yet visited, so a test may visit it, tamper with it, or replay it.
 */
export async function reachCallback(
  gatewayUrl: string,
  jar: CookieJar,
  loginPath = '/app/auth/login',
): Promise<string> {
  const { next, last } = await follow(`${gatewayUrl}${loginPath}`, jar, (url) => url.pathname === '/app/auth/callback');
  if (!next) throw new Error(`the provider did not send the browser back: ${last.status} ${await last.text()}`);
  return next;
}

/** Visits the callback: the gateway's answer (a redirect to the console, or a refusal). */
export async function visitCallback(callbackUrl: string, jar: CookieJar): Promise<Hop & { body: string }> {
  const response = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: jar.header() } });
  const setCookies = jar.take(response);
  return {
    url: callbackUrl,
    status: response.status,
    location: response.headers.get('location') ?? undefined,
    setCookies,
    body: await response.text(),
  };
}

/** A whole sign-in; the jar then holds the session cookie if the gateway gave one. */
export async function signIn(gatewayUrl: string, jar = new CookieJar()) {
  const answer = await visitCallback(await reachCallback(gatewayUrl, jar), jar);
  return { jar, answer };
}

/**
 * The fields of the provider's device page's form, if any: the page that submits the code of the address by script,
 * the code input (`op.deviceInputForm`), the confirmation (`op.deviceConfirmForm`).
 */
function deviceForm(page: string, pageUrl: string): { action: string; fields: URLSearchParams } | undefined {
  const form = page.match(/<form[^>]*method="post"[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/);
  if (!form) return undefined;
  const fields = new URLSearchParams();
  for (const [tag] of (form[2] ?? '').matchAll(/<input[\s\S]*?>/g)) {
    const name = tag.match(/name="([^"]*)"/)?.[1];
    if (name !== undefined) fields.set(name, tag.match(/value="([^"]*)"/)?.[1] ?? '');
  }
  return { action: new URL(form[1] ?? '', pageUrl).href, fields };
}

/**
 * The person's part of a device sign-in, on another device: opens the provider's verification address (with the
 * user code in it, or `userCode` typed into its form), submits the code and the confirmation as the pages' forms
 * would, and signs in at the provider's login prompt. Returns the provider's last page (its "signed in" page).
 */
export async function completeDeviceSignIn(url: string, jar = new CookieJar(), userCode?: string): Promise<string> {
  let { last } = await follow(url, jar);
  let pageUrl = url;
  for (let step = 0; step < 5; step++) {
    const page = await last.text();
    const form = deviceForm(page, pageUrl);
    // No form: the provider's closing page. A form with an error (oidc-provider's red line): the sign-in was
    // refused or aborted, and the page offers to start over.
    if (!form || page.includes('class="red"')) return page;
    if (userCode !== undefined && form.fields.get('user_code') === '') form.fields.set('user_code', userCode);
    const response = await fetch(form.action, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form.fields,
    });
    jar.take(response);
    const location = response.headers.get('location');
    if (location === null) {
      last = response;
      pageUrl = form.action;
      continue;
    }
    await response.body?.cancel();
    pageUrl = new URL(location, form.action).href;
    ({ last } = await follow(pageUrl, jar));
  }
  throw new Error('the provider’s device pages did not finish in 5 steps');
}
