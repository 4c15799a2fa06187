import type { IncomingMessage } from 'node:http';
import { badRequest, type GatewayError } from '../../shared/http/gateway-error.ts';

/** What the local host takes from a request line and its Host header, as a function URL would see them. */
export interface RequestTarget {
  /** The host the client named, or `localhost` when it named none (HTTP/1.0). */
  host: string;
  /** The path as sent: never normalised, never decoded. */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
}

/** A host name, IPv4 or bracketed IPv6 address, with an optional port: all a Host header may hold. */
const validHost =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** `.` or `..`, also spelled with percent-encoded dots (`%2e`, `.%2E`, `%2e%2e`). */
const dotSegment = /^(?:\.|%2e){1,2}$/i;

/**
 * Reads the request target the way a function URL receives it, or the 400 to answer. The path is taken as sent,
 * never normalised: CloudFront and Lambda hand a function an origin-form path, so an absolute-form target, a `//`,
 * a backslash or a dot segment (however it is encoded) is refused here rather than resolved into some other
 * route — a path-filtering proxy in front must see the path the gateway acts on. The Host header is checked on its
 * own and never used to parse the target, so a malformed one is a 400 rather than a failure of the host.
 */
export function readRequestTarget(
  request: IncomingMessage,
): { ok: true; target: RequestTarget } | { ok: false; error: GatewayError } {
  const hostHeader = request.headers.host;
  if (hostHeader !== undefined && !validHost.test(hostHeader)) {
    return { ok: false, error: badRequest('invalid_host', 'The Host header is not a host name or address.') };
  }
  const raw = request.url ?? '/';
  const queryStart = raw.indexOf('?');
  const path = queryStart === -1 ? raw : raw.slice(0, queryStart);
  const query = queryStart === -1 ? '' : raw.slice(queryStart + 1);
  const problem = targetProblem(raw, path);
  if (problem) return { ok: false, error: badRequest('invalid_request_target', `The request target ${problem}.`) };
  return { ok: true, target: { host: hostHeader ?? 'localhost', path, query } };
}

function targetProblem(raw: string, path: string): string | undefined {
  if (!path.startsWith('/')) return 'must be a path starting with "/" (no absolute URL)';
  if (raw.includes('#')) return 'must not carry a fragment';
  // A URL parser would take a backslash for a slash, and so may whatever stands in front of the gateway.
  if (path.includes('\\')) return 'must not hold a backslash';
  if (path.includes('//')) return 'must not hold an empty segment ("//")';
  if (path.split('/').some((segment) => dotSegment.test(segment))) return 'must not hold "." or ".." segments';
  return undefined;
}
