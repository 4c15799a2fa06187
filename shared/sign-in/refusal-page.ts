import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';

/**
 * A refused sign-in as a browser shows it: the callback is a top-level navigation, so a person the gateway turns
 * away (no member stands for them, a domain not allowed, a disabled member) reads why on a small page with a way
 * back to the console's sign-in, rather than a JSON error. Programs (fetch, the CLI, tests) ask for JSON and get
 * the usual envelope; only a request that accepts text/html gets this page, with the same status.
 */
export function wantsPage(request: GatewayRequest): boolean {
  return request.method === 'GET' && /\btext\/html\b/.test(request.headers.accept ?? '');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** `backTo`: the console, where the sign-in began. */
export function refusalPage(status: number, code: string, message: string, backTo: string): GatewayResponse {
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in refused · Model gateway</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1a1a1a;background:#f6f7f9}
main{max-width:32rem;margin:0 auto;background:#fff;border:1px solid #d8dce2;border-radius:8px;padding:1.5rem}
h1{font-size:1.4rem;margin:0 0 .75rem}code{background:#eef0f3;padding:0 .25rem;border-radius:3px}a{color:#0b57d0}</style>
</head>
<body>
<main>
<h1>Sign-in refused</h1>
<p>${escapeHtml(message)}</p>
<p>Reason: <code>${escapeHtml(code)}</code></p>
<p><a href="${escapeHtml(backTo)}">Back to the sign-in page</a></p>
</main>
</body>
</html>
`;
  return {
    statusCode: status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
    body,
  };
}
