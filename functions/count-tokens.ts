import { handleTokenCount } from '../shared/pipeline/handle-token-count.ts';
import { anthropicCountTokensClientWire } from '../shared/wires/anthropic-messages/anthropic-count-tokens-client-wire.ts';
import { geminiCountTokensClientWire } from '../shared/wires/gemini/gemini-count-tokens-client-wire.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/**
 * `POST /v1/messages/count_tokens` and `POST /v1beta/models/<provider/model>:countTokens` (also `/v1/models/…`, and
 * the same under `/<prefix>/`): each route's wire reads its own count.
 */
export const handler = streamingEntry(
  (services, request, route) =>
    route.route.wire === 'gemini-count-tokens'
      ? handleTokenCount(services, request, route, geminiCountTokensClientWire)
      : handleTokenCount(services, request, route, anthropicCountTokensClientWire),
  openRequestPathStore,
);
