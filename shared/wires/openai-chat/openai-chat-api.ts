import * as z from '../../validation/zod.ts';

/**
 * The Chat Completions request as clients send it. Strict on the fields the gateway reads, open for everything
 * else (`z.looseObject`), because pass-through means fields we do not know still reach the provider.
 */
const messageSchema = z.looseObject({
  role: z.string().check(z.minLength(1)),
  content: z.optional(z.union([z.string(), z.array(z.unknown()), z.null()])),
});

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  messages: z.array(messageSchema).check(z.minLength(1)),
  stream: z.optional(z.boolean()),
  stream_options: z.nullish(z.looseObject({ include_usage: z.optional(z.boolean()) })),
  max_tokens: z.nullish(z.number().check(z.int(), z.positive())),
  max_completion_tokens: z.nullish(z.number().check(z.int(), z.positive())),
  tools: z.optional(z.array(z.unknown())),
  tool_choice: z.optional(z.unknown()),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/** Usage as OpenAI-compatible providers report it, tolerant of the fields some of them rename or omit. */
export const chatUsageSchema = z.looseObject({
  prompt_tokens: z.nullish(z.number()),
  completion_tokens: z.nullish(z.number()),
  prompt_tokens_details: z.nullish(z.looseObject({ cached_tokens: z.nullish(z.number()) })),
  // DeepSeek-type providers report cache hits beside the prompt count.
  prompt_cache_hit_tokens: z.nullish(z.number()),
  // Some GLM-type and older compatible APIs put the cached count at the top level.
  cached_tokens: z.nullish(z.number()),
});

export const chatCompletionResponseSchema = z.looseObject({ usage: z.nullish(chatUsageSchema) });

export const chatCompletionChunkSchema = z.looseObject({
  choices: z.nullish(z.array(z.unknown())),
  usage: z.nullish(chatUsageSchema),
});
