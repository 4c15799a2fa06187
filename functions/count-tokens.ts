import { handleTokenCount } from '../shared/pipeline/handle-token-count.ts';
import { anthropicCountTokensClientWire } from '../shared/wires/anthropic-messages/anthropic-count-tokens-client-wire.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/** `POST /v1/messages/count_tokens` (and `/<prefix>/v1/messages/count_tokens`). */
export const handler = streamingEntry(
  (services, request, route) => handleTokenCount(services, request, route, anthropicCountTokensClientWire),
  openRequestPathStore,
);
