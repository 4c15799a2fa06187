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
