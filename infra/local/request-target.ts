import type { IncomingMessage } from 'node:http';
import { badRequest, type GatewayError } from '../../shared/http/gateway-error.ts';

/** What the local host takes from a request line and its Host header, as a function URL would see them. */
export interface RequestTarget {
  /** The host the client named, or `localhost` when it named none (HTTP/1.0). */
  host: string;
  path: string;
  /** The raw query string, without `?`. */
  query: string;
}

/** A host name, IPv4 or bracketed IPv6 address, with an optional port: all a Host header may hold. */
const validHost =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Reads the request target the way a function URL receives it, or the 400 to answer. The Host header is checked
 * on its own and never used to parse the target, so a malformed one is a 400 rather than a failure of the host.
 */
export function readRequestTarget(
  request: IncomingMessage,
): { ok: true; target: RequestTarget } | { ok: false; error: GatewayError } {
  const hostHeader = request.headers.host;
  if (hostHeader !== undefined && !validHost.test(hostHeader)) {
    return { ok: false, error: badRequest('invalid_host', 'The Host header is not a host name or address.') };
  }
  const url = new URL(request.url ?? '/', 'http://localhost');
  return {
    ok: true,
    target: { host: hostHeader ?? 'localhost', path: url.pathname, query: url.search.slice(1) },
  };
}
