import { handleInference } from '../shared/pipeline/handle-inference.ts';
import { anthropicMessagesReach } from '../shared/translation/client-reach/anthropic-messages-reach.ts';
import { anthropicMessagesClientWire } from '../shared/wires/anthropic-messages/anthropic-messages-client-wire.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/** `POST /v1/messages` (and `/<prefix>/v1/messages`). */
export const handler = streamingEntry(
  (services, request, route) =>
    handleInference(services, request, route, anthropicMessagesClientWire, anthropicMessagesReach),
  openRequestPathStore,
);
