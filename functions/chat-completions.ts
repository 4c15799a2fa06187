import { handleInference } from '../shared/pipeline/handle-inference.ts';
import { openaiChatReach } from '../shared/translation/client-reach/openai-chat-reach.ts';
import { openaiChatClientWire } from '../shared/wires/openai-chat/openai-chat-client-wire.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/** `POST /v1/chat/completions` (and `/<prefix>/v1/chat/completions`). */
export const handler = streamingEntry(
  (services, request, route) => handleInference(services, request, route, openaiChatClientWire, openaiChatReach),
  openRequestPathStore,
);
