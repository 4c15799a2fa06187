import type { SseMessage } from '../../sse/sse-event-splitter.ts';
import * as z from '../../validation/zod.ts';
import { isErrorPayload, parseJson, readApart } from '../parse-json.ts';
import type { ChatFinishReason } from './openai-chat-finish-reason.ts';
import { type ChatThinkingBlockOut, chatThinkingBlocksSchema } from './openai-chat-thinking-blocks.ts';
import { type ChatUsageOut, chatUsageSchema } from './openai-chat-usage.ts';

/**
 * One event of a Chat Completions stream: a `chat.completion.chunk`, the error a failing stream ends with
 * (`{"error": {...}}` in a plain `data:` line), or the closing `[DONE]`. Chunks are read tolerantly, each field
 * `z.nullish()`; a chunk that still cannot be read is not read at all: a pass-through sends it on as it came, and
 * a translation passes over it.
 * https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */

const chunkToolCallSchema = z.object({
  /** Some engines leave it out when they send one call per chunk; the position in the list stands in. */
  index: z.nullish(z.number()),
  id: z.nullish(z.string()),
  function: z.nullish(z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.string()) })),
});

const chunkChoiceSchema = z.object({
  index: z.nullish(z.number()),
  delta: z.nullish(
    z.object({
      content: z.nullish(z.string()),
      refusal: z.nullish(z.string()),
      reasoning_content: z.nullish(z.string()),
      thinking_blocks: readApart(chatThinkingBlocksSchema),
      tool_calls: z.nullish(z.array(chunkToolCallSchema)),
    }),
  ),
  finish_reason: z.nullish(z.string()),
});

const chunkSchema = z.object({
  choices: z.nullish(z.array(chunkChoiceSchema)),
  usage: z.nullish(chatUsageSchema),
});

/** `code` is a number on some engines. */
const streamErrorSchema = z.object({
  error: z.object({
    message: z.nullish(z.string()),
    type: z.nullish(z.string()),
    code: z.nullish(z.union([z.string(), z.number()])),
  }),
});

export type ChatChunk = z.infer<typeof chunkSchema>;
export type ChatChunkToolCall = z.infer<typeof chunkToolCallSchema>;
export type ChatStreamError = z.infer<typeof streamErrorSchema>['error'] & { param?: null };

export type ChatStreamEvent =
  | { type: 'chunk'; chunk: ChatChunk }
  | { type: 'error'; error: ChatStreamError }
  | { type: 'done' };

/** One SSE event of a chat stream, read once; `undefined` for anything else, so a reader never throws. */
export function parseChatStreamEvent(message: SseMessage): ChatStreamEvent | undefined {
  if (!message.data.startsWith('{') && message.data.trim() === '[DONE]') return { type: 'done' };
  const payload = parseJson(message.data);
  if (message.event === 'error' || isErrorPayload(payload)) {
    const failure = streamErrorSchema.safeParse(payload);
    return { type: 'error', error: failure.success ? failure.data.error : {} };
  }
  const chunk = chunkSchema.safeParse(payload);
  return chunk.success ? { type: 'chunk', chunk: chunk.data } : undefined;
}

/** The chunk `include_usage` adds: no choices, only usage. The gateway drops it when the client did not ask. */
export function isUsageOnlyChunk(event: ChatStreamEvent): boolean {
  return event.type === 'chunk' && event.chunk.usage != null && (event.chunk.choices?.length ?? 0) === 0;
}

/** A chunk as the gateway writes it, as the official SDKs read it. */
export interface ChatChunkToolCallOut {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatChunkDeltaOut {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  /** Every signed reasoning block of the answer, once, in the chunk with `finish_reason` (openai-chat-thinking-blocks.ts). */
  thinking_blocks?: ChatThinkingBlockOut[];
  tool_calls?: ChatChunkToolCallOut[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: 0; delta: ChatChunkDeltaOut; logprobs: null; finish_reason: ChatFinishReason | null }[];
  /** With `include_usage`, `null` on every chunk but the last, as the vendor sends it. */
  usage?: ChatUsageOut | null;
}
