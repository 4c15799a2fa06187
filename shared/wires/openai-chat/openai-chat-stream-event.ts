import type { SseMessage } from '../../sse/sse-event-splitter.ts';
import * as z from '../../validation/zod.ts';
import { isErrorPayload, isRecord, parseJson, readApart } from '../parse-json.ts';
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

/** Exported for the test that holds `readPlainChunk` to it; everything else reads chunks with `parseChatStreamEvent`. */
export const chunkSchema = z.object({
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
  const plain = readPlainChunk(payload);
  if (plain) return { type: 'chunk', chunk: plain };
  const chunk = chunkSchema.safeParse(payload);
  return chunk.success ? { type: 'chunk', chunk: chunk.data } : undefined;
}

/**
 * The common chunk — choices whose delta holds text (content, refusal, reasoning) and whose finish reason is a
 * string or null, no usage — read without zod into exactly what `chunkSchema` makes of it: new objects with the
 * schema's fields in the schema's order, unknown fields left out, a field that was there (null or not) still there.
 * Undefined for anything else (tool calls, thinking blocks, usage, a field of another type), which the schema
 * reads. Every event of a stream is read, and the schema's generic walk allocated about 2 KB per chunk, a tenth of
 * a relayed event's CPU; test/wires/openai-chat/openai-chat-stream-event.test.ts holds the two to the same output.
 */
export function readPlainChunk(payload: unknown): ChatChunk | undefined {
  if (!isRecord(payload)) return undefined;
  const chunk: Record<string, unknown> = {};
  if ('choices' in payload) {
    const choices = payload.choices;
    if (Array.isArray(choices)) {
      const read: unknown[] = [];
      for (const choice of choices) {
        const plain = readPlainChoice(choice);
        if (plain === undefined) return undefined;
        read.push(plain);
      }
      chunk.choices = read;
    } else if (choices === null || choices === undefined) {
      chunk.choices = choices;
    } else {
      return undefined;
    }
  }
  if ('usage' in payload) {
    const usage = payload.usage;
    if (usage !== null && usage !== undefined) return undefined;
    chunk.usage = usage;
  }
  return chunk as ChatChunk;
}

function readPlainChoice(choice: unknown): Record<string, unknown> | undefined {
  if (!isRecord(choice)) return undefined;
  const read: Record<string, unknown> = {};
  if (!copyNullish(choice, read, 'index', 'number')) return undefined;
  if ('delta' in choice) {
    const delta = choice.delta;
    if (isRecord(delta)) {
      if ('thinking_blocks' in delta || 'tool_calls' in delta) return undefined;
      const readDelta: Record<string, unknown> = {};
      if (
        !copyNullish(delta, readDelta, 'content', 'string') ||
        !copyNullish(delta, readDelta, 'refusal', 'string') ||
        !copyNullish(delta, readDelta, 'reasoning_content', 'string')
      ) {
        return undefined;
      }
      read.delta = readDelta;
    } else if (delta === null || delta === undefined) {
      read.delta = delta;
    } else {
      return undefined;
    }
  }
  if (!copyNullish(choice, read, 'finish_reason', 'string')) return undefined;
  return read;
}

/** Copies a `z.nullish` field of a primitive type as the schema keeps it; false when it holds something else. */
function copyNullish(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  name: string,
  type: 'string' | 'number',
): boolean {
  if (!(name in from)) return true;
  const value = from[name];
  if (
    value !== null &&
    value !== undefined &&
    (typeof value !== type || (type === 'number' && !Number.isFinite(value)))
  ) {
    return false;
  }
  to[name] = value;
  return true;
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
