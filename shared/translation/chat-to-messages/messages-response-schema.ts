import * as z from '../../validation/zod.ts';
import { parseJson } from '../../wires/parse-json.ts';

/**
 * The messages-format answer as the translator reads it: tolerant (`z.nullish()`, flat blocks) because
 * compatible engines omit fields and add block types. The usage counts are read by the anthropic-messages
 * wire's own usage reader, which knows their traps; only the content and stop reason are read here.
 * https://docs.anthropic.com/en/api/messages and https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */

const contentBlockSchema = z.object({
  type: z.string(),
  text: z.nullish(z.string()),
  thinking: z.nullish(z.string()),
  id: z.nullish(z.string()),
  name: z.nullish(z.string()),
  input: z.optional(z.unknown()),
});

export type MessagesContentBlock = z.infer<typeof contentBlockSchema>;

export const messagesResponseSchema = z.object({
  content: z.nullish(z.array(contentBlockSchema)),
  stop_reason: z.nullish(z.string()),
});

const contentDeltaSchema = z.object({
  type: z.string(),
  text: z.nullish(z.string()),
  thinking: z.nullish(z.string()),
  partial_json: z.nullish(z.string()),
});

/** An event type this list does not know (new ones may appear, says the vendor) fails to parse and is skipped. */
export const messagesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start') }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.nullish(z.object({ stop_reason: z.nullish(z.string()) })),
  }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: contentBlockSchema }),
  z.object({ type: z.literal('content_block_delta'), index: z.number(), delta: contentDeltaSchema }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({
    type: z.literal('error'),
    error: z.nullish(z.object({ type: z.nullish(z.string()), message: z.nullish(z.string()) })),
  }),
]);

export type MessagesStreamEvent = z.infer<typeof messagesStreamEventSchema>;

export function parseMessagesStreamEvent(data: string): MessagesStreamEvent | undefined {
  const parsed = messagesStreamEventSchema.safeParse(parseJson(data));
  return parsed.success ? parsed.data : undefined;
}
