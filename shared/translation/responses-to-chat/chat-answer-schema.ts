import * as z from '../../validation/zod.ts';
import { chatUsageSchema } from '../../wires/openai-chat/openai-chat-api.ts';
import { parseJson } from '../../wires/parse-json.ts';

/**
 * What a chat upstream returns, read tolerantly: only the fields the translator uses, each `z.nullish()`,
 * because compatible engines omit or null fields the vendor always sends.
 * https://platform.openai.com/docs/api-reference/chat/object and .../chat-streaming/streaming
 */

/**
 * The usage the gateway reads everywhere, plus the detail counts the Responses usage repeats: reasoning tokens,
 * and cache writes where an engine reports them (router-style APIs do, in `prompt_tokens_details`).
 */
export const chatAnswerUsageSchema = z.extend(chatUsageSchema, {
  prompt_tokens_details: z.nullish(
    z.looseObject({ cached_tokens: z.nullish(z.number()), cache_write_tokens: z.nullish(z.number()) }),
  ),
  completion_tokens_details: z.nullish(z.looseObject({ reasoning_tokens: z.nullish(z.number()) })),
});

export type ChatAnswerUsage = z.infer<typeof chatAnswerUsageSchema>;

const toolCallSchema = z.object({
  id: z.nullish(z.string()),
  function: z.nullish(z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.string()) })),
});

export const chatCompletionAnswerSchema = z.object({
  choices: z.nullish(
    z.array(
      z.object({
        // `reasoning_content` (DeepSeek-type thinking) is not read: it never reaches the Responses output.
        message: z.nullish(
          z.object({
            content: z.nullish(z.string()),
            refusal: z.nullish(z.string()),
            tool_calls: z.nullish(z.array(toolCallSchema)),
          }),
        ),
        finish_reason: z.nullish(z.string()),
      }),
    ),
  ),
  usage: z.nullish(chatAnswerUsageSchema),
});

export type ChatCompletionAnswer = z.infer<typeof chatCompletionAnswerSchema>;

const chunkToolCallSchema = z.object({
  /** Some engines leave it out when they send one call per chunk; the position in the list stands in. */
  index: z.nullish(z.number()),
  id: z.nullish(z.string()),
  function: z.nullish(z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.string()) })),
});

export type ChatChunkToolCall = z.infer<typeof chunkToolCallSchema>;

const chunkSchema = z.object({
  choices: z.nullish(
    z.array(
      z.object({
        index: z.nullish(z.number()),
        delta: z.nullish(
          z.object({
            content: z.nullish(z.string()),
            refusal: z.nullish(z.string()),
            tool_calls: z.nullish(z.array(chunkToolCallSchema)),
          }),
        ),
        finish_reason: z.nullish(z.string()),
      }),
    ),
  ),
  usage: z.nullish(chatAnswerUsageSchema),
});

/** A chat stream fails with `{"error": {...}}` in a plain `data:` line; `code` is a number on some engines. */
const streamErrorSchema = z.object({
  error: z.object({
    message: z.nullish(z.string()),
    type: z.nullish(z.string()),
    code: z.nullish(z.union([z.string(), z.number()])),
  }),
});

export type ChatStreamEvent =
  | { kind: 'chunk'; chunk: z.infer<typeof chunkSchema> }
  | { kind: 'error'; error: z.infer<typeof streamErrorSchema>['error'] }
  | { kind: 'done' };

/** One SSE `data` payload of a chat stream; `undefined` for anything else, so a reader never throws. */
export function parseChatStreamEvent(data: string): ChatStreamEvent | undefined {
  if (data.trim() === '[DONE]') return { kind: 'done' };
  const json = parseJson(data);
  const failure = streamErrorSchema.safeParse(json);
  if (failure.success) return { kind: 'error', error: failure.data.error };
  const chunk = chunkSchema.safeParse(json);
  return chunk.success ? { kind: 'chunk', chunk: chunk.data } : undefined;
}
