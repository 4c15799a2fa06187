import { parseRequest } from '../../http/parse-request.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';
import { chatStreamErrorEvent } from './openai-chat-error.ts';
import { chatMediaParts } from './openai-chat-media.ts';
import { type ChatRequest, chatRequestSchema, includesUsage } from './openai-chat-request.ts';
import { assertChatCostBounded, chatAnswerCount } from './openai-chat-spend-bounds.ts';
import { encodeChatStreamEvent } from './openai-chat-sse.ts';
import { type ChatStreamEvent, isUsageOnlyChunk } from './openai-chat-stream-event.ts';

/** The Chat Completions client wire (`POST /v1/chat/completions`). */
export const openaiChatClientWire: ClientWireFormat<ChatRequest, ChatStreamEvent> = {
  wire: 'openai-chat',
  envelope: 'openai',
  parseRequest: (body) => parseRequest(chatRequestSchema, body),
  modelOf: (request) => request.model,
  isStream: (request) => request.stream === true,
  requestedOutput: (request) => request.max_completion_tokens ?? request.max_tokens ?? undefined,
  answerCount: chatAnswerCount,
  assertCostBounded: assertChatCostBounded,
  mediaParts: chatMediaParts,
  // The gateway asks every chat upstream for usage; a client that did not ask must not receive that chunk.
  passThroughDrops: (request) => (includesUsage(request) ? undefined : isUsageOnlyChunk),
  streamErrorEvent: chatStreamErrorEvent,
  encodeEvent: encodeChatStreamEvent,
};
