import * as z from '../../validation/zod.ts';
import { parseJson } from '../parse-json.ts';

/**
 * What the messages-format vendor API returns, read tolerantly: only the fields the gateway uses, each
 * `z.nullish()`, because compatible engines omit or null fields the vendor always sends.
 * https://docs.anthropic.com/en/api/messages and https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */

/**
 * `input_tokens` EXCLUDES cache reads and cache writes here, unlike the gateway's usage report. In
 * `message_delta` every count is cumulative and may be `null`, which means "not restated", never 0.
 */
export const anthropicMessagesUsageSchema = z.object({
  input_tokens: z.nullish(z.number()),
  cache_read_input_tokens: z.nullish(z.number()),
  cache_creation_input_tokens: z.nullish(z.number()),
  output_tokens: z.nullish(z.number()),
});

export type AnthropicMessagesUsage = z.infer<typeof anthropicMessagesUsageSchema>;

export const anthropicMessagesResponseSchema = z.object({
  usage: z.nullish(anthropicMessagesUsageSchema),
});

export const anthropicMessagesErrorBodySchema = z.object({
  type: z.nullish(z.literal('error')),
  error: z.object({
    type: z.nullish(z.string()),
    message: z.nullish(z.string()),
  }),
});

/** Flat and optional rather than a union per block type, so a block type added later does not fail the event. */
const contentBlockSchema = z.object({
  type: z.string(),
  id: z.nullish(z.string()),
  name: z.nullish(z.string()),
  text: z.nullish(z.string()),
});

const contentDeltaSchema = z.object({
  type: z.string(),
  text: z.nullish(z.string()),
  partial_json: z.nullish(z.string()),
  thinking: z.nullish(z.string()),
});

/**
 * The stream events by `type`. An event type this list does not know fails to parse and is skipped by readers:
 * the vendor documents that new event types may appear, and none of them carries usage today.
 */
export const anthropicMessagesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message_start'),
    message: z.object({ usage: z.nullish(anthropicMessagesUsageSchema) }),
  }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.nullish(z.object({ stop_reason: z.nullish(z.string()) })),
    usage: z.nullish(anthropicMessagesUsageSchema),
  }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: contentBlockSchema }),
  z.object({ type: z.literal('content_block_delta'), index: z.number(), delta: contentDeltaSchema }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.extend(anthropicMessagesErrorBodySchema, { type: z.literal('error') }),
]);

export type AnthropicMessagesStreamEvent = z.infer<typeof anthropicMessagesStreamEventSchema>;

/** Parses one SSE `data` payload; `undefined` for anything that is not a known event, so a reader never throws. */
export function parseAnthropicMessagesStreamEvent(data: string): AnthropicMessagesStreamEvent | undefined {
  const parsed = anthropicMessagesStreamEventSchema.safeParse(parseJson(data));
  return parsed.success ? parsed.data : undefined;
}
