import { parseRequest } from '../../http/parse-request.ts';
import { renderError } from '../../http/render-error.ts';
import { droppingRewriter } from '../../pipeline/event-rewriter.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';
import { chatCompletionRequestSchema } from './openai-chat-api.ts';
import { isUsageOnlyChunk } from './openai-chat-usage.ts';

export function includesUsage(body: Record<string, unknown>): boolean {
  return (body.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage === true;
}

/** The Chat Completions client wire (`POST /v1/chat/completions`). */
export const openaiChatClientWire: ClientWireFormat = {
  wire: 'openai-chat',
  envelope: 'openai',
  validate(body) {
    parseRequest(chatCompletionRequestSchema, body);
  },
  modelOf: (body) => String(body.model),
  isStream: (body) => body.stream === true,
  requestedOutput(body) {
    const value = body.max_completion_tokens ?? body.max_tokens;
    return typeof value === 'number' ? value : undefined;
  },
  streamRewriter(body) {
    // The gateway asks every chat upstream for usage; a client that did not ask must not receive that chunk.
    return includesUsage(body) ? undefined : droppingRewriter((event) => isUsageOnlyChunk(event.data));
  },
  // A failing chat stream ends with a plain `data:` chunk holding the error response's own body.
  streamErrorEvent(error) {
    return `data: ${renderError(error, 'openai').body}\n\n`;
  },
};
