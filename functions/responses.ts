import { handleInference } from '../shared/pipeline/handle-inference.ts';
import { openaiResponsesReach } from '../shared/translation/client-reach/openai-responses-reach.ts';
import { openaiResponsesClientWire } from '../shared/wires/openai-responses/openai-responses-client-wire.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/** `POST /v1/responses` (and `/<prefix>/v1/responses`). */
export const handler = streamingEntry(
  (services, request, route) =>
    handleInference(services, request, route, openaiResponsesClientWire, openaiResponsesReach),
  openRequestPathStore,
);
