import { createHash, randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { gatewayEndpoint } from '../http/gateway-endpoint.ts';

/**
 * The gateway's own session: a random id the browser holds in an HttpOnly cookie (or the admin CLI in its config
 * folder) and the store holds only as a SHA-256. Over https the cookie is `Secure` with the `__Host-` prefix (no
 * Domain, Path=/: no other host or path can set or shadow it); on http — only `npm start` at http://127.0.0.1 or
 * localhost, where browsers refuse `Secure` cookies — it carries neither, and the name says so.
 */
export const sessionIdPrefix = 'gws_';

export function newSessionId(): string {
  return `${sessionIdPrefix}${randomBytes(32).toString('hex')}`;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The header the console sends with every request made with its session cookie (CONTRACTS §B): the CSRF guard. */
export const consoleHeader = 'x-gateway-console';

export function usesHttps(config: GatewayConfig, headers: Record<string, string | undefined>): boolean {
  return gatewayEndpoint(config, headers)?.startsWith('https://') === true;
}

export const cookieNames = (secure: boolean) =>
  secure
    ? { session: '__Host-gateway-session', signIn: '__Host-gateway-sign-in' }
    : { session: 'gateway-session', signIn: 'gateway-sign-in' };

/** The value of one cookie of the request's `cookie` header (the first, should a name appear twice). */
export function readCookie(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * A `Set-Cookie` value. Sessions are SameSite=Strict: no other site's page can make the browser send one. The
 * short-lived sign-in cookie is SameSite=Lax, because the provider's redirect to the callback is a cross-site
 * navigation, which Strict cookies do not accompany; it only binds the callback to the browser that began it.
 */
export function setCookie(
  name: string,
  value: string,
  options: { secure: boolean; maxAgeSeconds: number; sameSite: 'Strict' | 'Lax' },
): string {
  return [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    `SameSite=${options.sameSite}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
