import { GatewayError } from '../http/gateway-error.ts';

/** Parses JSON from a provider, where malformed text is an answer to tolerate, not an error to throw. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON object: not `null`, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A payload that reports a failure in any wire the gateway relays: its top level has `type: "error"`
 * (Messages, Responses) or an `error` object (Chat Completions and generate-content put `{"error":{...}}` in a
 * plain `data:` line, and some engines do so on the other wires too). A Responses `response.failed` nests its
 * error under `response` and is a finished (failed) answer that may carry usage, so it is not one.
 */
export function isErrorPayload(payload: unknown): boolean {
  if (!isRecord(payload)) return false;
  return payload.type === 'error' || (typeof payload.error === 'object' && payload.error !== null);
}

/** A 200 whose body is not the answer its wire describes: the upstream's fault, answered 502. */
export function unreadableAnswer(cause: unknown): GatewayError {
  return new GatewayError(502, 'upstream_invalid_response', 'The upstream provider returned an unreadable answer.', {
    cause,
  });
}
