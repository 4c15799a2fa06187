import * as z from 'zod';

/**
 * The Chat Completions request as clients send it. Strict on the fields the gateway reads, open for everything
 * else (`.loose()`), because pass-through means fields we do not know still reach the provider.
 */
const messageSchema = z
  .object({
    role: z.string().min(1),
    content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
  })
  .loose();

export const chatCompletionRequestSchema = z
  .object({
    model: z.string().min(1).max(256),
    messages: z.array(messageSchema).min(1),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
    max_tokens: z.number().int().positive().nullish(),
    max_completion_tokens: z.number().int().positive().nullish(),
    tools: z.array(z.unknown()).optional(),
    tool_choice: z.unknown().optional(),
  })
  .loose();

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/** Usage as OpenAI-compatible providers report it, tolerant of the fields some of them rename or omit. */
export const chatUsageSchema = z
  .object({
    prompt_tokens: z.number().nullish(),
    completion_tokens: z.number().nullish(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).loose().nullish(),
    // DeepSeek-type providers report cache hits beside the prompt count.
    prompt_cache_hit_tokens: z.number().nullish(),
    // Some GLM-type and older compatible APIs put the cached count at the top level.
    cached_tokens: z.number().nullish(),
  })
  .loose();

export const chatCompletionResponseSchema = z.object({ usage: chatUsageSchema.nullish() }).loose();

export const chatCompletionChunkSchema = z
  .object({
    choices: z.array(z.unknown()).nullish(),
    usage: chatUsageSchema.nullish(),
  })
  .loose();
