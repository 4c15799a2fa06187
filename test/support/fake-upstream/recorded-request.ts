import type { IncomingHttpHeaders } from 'node:http';
import type { FakeWireName } from './wire-reply.ts';

/**
 * How an exchange ended: `finished` — the whole reply was sent; `client-closed` — the client closed the
 * connection first (the gateway gave up, or passed on its client's cancellation); `server-destroyed` — the fake
 * dropped it on purpose (`resetAfterChunks`) or was closed.
 */
export type ExchangeOutcome = 'pending' | 'finished' | 'client-closed' | 'server-destroyed';

export interface RecordedRequest {
  /** Position in `upstream.requests`. */
  readonly index: number;
  readonly method: string;
  /** The path as sent, without the query. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Names in lower case; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: string;
  /** The parsed body; `undefined` when it is not JSON. */
  readonly json: unknown;
  /** The wire the path selected; `undefined` for a path the fake does not serve (answered 404). */
  readonly wire: FakeWireName | undefined;
  // The fields below change while the exchange runs.
  readonly outcome: ExchangeOutcome;
  /** True once the client closed its connection before the reply finished. */
  readonly clientClosedEarly: boolean;
  /** Writes that reached the socket: SSE events of a stream, or 1 for a whole body. */
  readonly chunksSent: number;
  /** When the request's body had arrived, on the monotonic clock (`performance.now()`). */
  readonly receivedAtMs: number;
  /** When the connection closed, however it ended, on the same clock; `undefined` while it is open. */
  readonly closedAtMs: number | undefined;
}

export type MutableRecordedRequest = { -readonly [Field in keyof RecordedRequest]: RecordedRequest[Field] };

export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
