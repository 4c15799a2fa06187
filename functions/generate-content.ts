import { handleInference } from '../shared/pipeline/handle-inference.ts';
import { geminiReach } from '../shared/translation/client-reach/gemini-reach.ts';
import { geminiClientWire } from '../shared/wires/gemini/gemini-client-wire.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/**
 * `POST /v1beta/models/<provider/model>:generateContent` and `:streamGenerateContent` (server-sent events with
 * `alt=sse`, else one JSON array), also as `/v1beta/<provider>/<model>:…`, under `/<prefix>/`, and the same under
 * `/v1/` (Google's stable API).
 */
export const handler = streamingEntry(
  (services, request, route) => handleInference(services, request, route, geminiClientWire, geminiReach),
  openRequestPathStore,
);
