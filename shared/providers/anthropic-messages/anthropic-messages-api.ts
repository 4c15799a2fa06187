import * as z from 'zod';
import { parseJson } from '../parse-json.ts';

/**
 * What the messages-format vendor API returns, read tolerantly: only the fields the gateway uses, each
 * `.nullish()`, because compatible engines omit or null fields the vendor always sends.
 * https://docs.anthropic.com/en/api/messages and https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */

/**
 * `input_tokens` EXCLUDES cache reads and cache writes here, unlike the gateway's usage report. In
 * `message_delta` every count is cumulative and may be `null`, which means "not restated", never 0.
 */
export const anthropicMessagesUsageSchema = z.object({
  input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
});

export type AnthropicMessagesUsage = z.infer<typeof anthropicMessagesUsageSchema>;

export const anthropicMessagesResponseSchema = z.object({
  usage: anthropicMessagesUsageSchema.nullish(),
});

export const anthropicMessagesErrorBodySchema = z.object({
  type: z.literal('error').nullish(),
  error: z.object({
    type: z.string().nullish(),
    message: z.string().nullish(),
  }),
});

/** Flat and optional rather than a union per block type, so a block type added later does not fail the event. */
const contentBlockSchema = z.object({
  type: z.string(),
  id: z.string().nullish(),
  name: z.string().nullish(),
  text: z.string().nullish(),
});

const contentDeltaSchema = z.object({
  type: z.string(),
  text: z.string().nullish(),
  partial_json: z.string().nullish(),
  thinking: z.string().nullish(),
});

/**
 * The stream events by `type`. An event type this list does not know fails to parse and is skipped by readers:
 * the vendor documents that new event types may appear, and none of them carries usage today.
 */
export const anthropicMessagesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message_start'),
    message: z.object({ usage: anthropicMessagesUsageSchema.nullish() }),
  }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish() }).nullish(),
    usage: anthropicMessagesUsageSchema.nullish(),
  }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: contentBlockSchema }),
  z.object({ type: z.literal('content_block_delta'), index: z.number(), delta: contentDeltaSchema }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  anthropicMessagesErrorBodySchema.extend({ type: z.literal('error') }),
]);

export type AnthropicMessagesStreamEvent = z.infer<typeof anthropicMessagesStreamEventSchema>;

/** Parses one SSE `data` payload; `undefined` for anything that is not a known event, so a reader never throws. */
export function parseAnthropicMessagesStreamEvent(data: string): AnthropicMessagesStreamEvent | undefined {
  const parsed = anthropicMessagesStreamEventSchema.safeParse(parseJson(data));
  return parsed.success ? parsed.data : undefined;
}
