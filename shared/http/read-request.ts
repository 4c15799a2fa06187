import { badRequest, GatewayError } from './gateway-error.ts';
import type { GatewayRequest } from './gateway-request.ts';
import { queryCredentialParameter } from './query-credentials.ts';

export function payloadTooLarge(limitBytes: number): GatewayError {
  return new GatewayError(413, 'request_too_large', `The request body exceeds the limit of ${limitBytes} bytes.`);
}

/**
 * The read stage (spec §4.1 rules 2-3, §8): refuse credentials in the query string, by name or by the look of
 * the value (shared/http/query-credentials.ts; even valid ones are never used), refuse WebSocket upgrades, and
 * refuse bodies over the limit. The local host also stops reading at the limit; on Lambda the body arrives
 * whole, so the length is checked here.
 */
export function checkRequestEnvelope(request: GatewayRequest, bodyLimitBytes: number): void {
  if (queryCredentialParameter(request.query) !== undefined) {
    throw badRequest(
      'query_credentials_refused',
      'Credentials in the query string are refused (even valid ones are never used); send the key in a header.',
    );
  }
  if (request.headers.upgrade?.toLowerCase() === 'websocket') {
    throw badRequest('websocket_refused', 'WebSocket inference is not supported; use HTTP with server-sent events.');
  }
  if (bodyByteLength(request.body) > bodyLimitBytes) throw payloadTooLarge(bodyLimitBytes);
}

/** The body's size in bytes, as it was sent (text is counted as its UTF-8 encoding). */
export function bodyByteLength(body: string | Buffer): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON object body; anything else is a 400 with a code that says what was wrong. */
export function readJsonObject(request: GatewayRequest): Record<string, unknown> {
  if (request.body.length === 0) throw badRequest('invalid_json', 'The request body is empty; send a JSON object.');
  let text: string;
  try {
    text = typeof request.body === 'string' ? request.body : utf8.decode(request.body);
  } catch {
    throw badRequest('invalid_encoding', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('invalid_json', 'The request body must be a JSON object.');
  }
  if (nestingDepth(value) > maximumNestingDepth) {
    throw badRequest('invalid_json', `The request body is nested deeper than ${maximumNestingDepth} levels.`);
  }
  return value as Record<string, unknown>;
}

/**
 * Far deeper than any real request (tool schemas rarely pass 20), far shallower than what overflows the
 * recursive JSON.stringify that sends the body upstream: a deeper body is refused before anything is reserved.
 */
export const maximumNestingDepth = 256;

function nestingDepth(root: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[root, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop() as [unknown, number];
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > maximumNestingDepth) return deepest;
    for (const inner of Object.values(value)) pending.push([inner, depth + 1]);
  }
  return deepest;
}
