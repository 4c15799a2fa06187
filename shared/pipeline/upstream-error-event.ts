import { isRecord, parseJson } from '../wires/parse-json.ts';
import type { StreamEvent } from '../wires/usage-report.ts';

/**
 * Whether an upstream event says that the stream failed. A stream that ends this way reached the end of its
 * bytes but not of its answer, so it settles as interrupted (the reservation stays as the charge, spec §8
 * accounting rule 2) rather than as completed with whatever partial usage it carried.
 *
 * Every wire the gateway relays fails a started stream in one of two forms, so no wire name is needed: an SSE
 * event named `error` (Responses, Messages), or a payload whose top level is an `error` object or has
 * `type: "error"` (Chat Completions and generate-content put `{"error":{...}}` in a plain `data:` line;
 * some engines drop the event name of the other two). A Responses `response.failed` nests its error under
 * `response` and is a finished (failed) answer that may carry usage, so it is not counted here.
 */
export function isUpstreamErrorEvent(event: StreamEvent): boolean {
  if (event.event === 'error') return true;
  // Most events are content deltas; only parse the ones that can be an error at all.
  if (!event.data.includes('"error"')) return false;
  const payload = parseJson(event.data);
  if (!isRecord(payload)) return false;
  const { error, type } = payload;
  return type === 'error' || (typeof error === 'object' && error !== null);
}
