import * as z from 'zod';
import { chatUsageSchema } from '../openai-chat/openai-chat-api.ts';
import { parseJson } from '../parse-json.ts';

/**
 * What a chat upstream returns, read tolerantly: only the fields the translator uses, each `.nullish()`,
 * because compatible engines omit or null fields the vendor always sends.
 * https://platform.openai.com/docs/api-reference/chat/object and .../chat-streaming/streaming
 */

/**
 * The usage the gateway reads everywhere, plus the detail counts the Responses usage repeats: reasoning tokens,
 * and cache writes where an engine reports them (router-style APIs do, in `prompt_tokens_details`).
 */
export const chatAnswerUsageSchema = chatUsageSchema.extend({
  prompt_tokens_details: z
    .object({ cached_tokens: z.number().nullish(), cache_write_tokens: z.number().nullish() })
    .loose()
    .nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).loose().nullish(),
});

export type ChatAnswerUsage = z.infer<typeof chatAnswerUsageSchema>;

const toolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const chatCompletionAnswerSchema = z.object({
  choices: z
    .array(
      z.object({
        // `reasoning_content` (DeepSeek-type thinking) is not read: it never reaches the Responses output.
        message: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z.array(toolCallSchema).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatAnswerUsageSchema.nullish(),
});

export type ChatCompletionAnswer = z.infer<typeof chatCompletionAnswerSchema>;

const chunkToolCallSchema = z.object({
  /** Some engines leave it out when they send one call per chunk; the position in the list stands in. */
  index: z.number().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export type ChatChunkToolCall = z.infer<typeof chunkToolCallSchema>;

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z.array(chunkToolCallSchema).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatAnswerUsageSchema.nullish(),
});

/** A chat stream fails with `{"error": {...}}` in a plain `data:` line; `code` is a number on some engines. */
const streamErrorSchema = z.object({
  error: z.object({
    message: z.string().nullish(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
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
