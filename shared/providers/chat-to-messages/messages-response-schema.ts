import * as z from 'zod';
import { parseJson } from '../parse-json.ts';

/**
 * The messages-format answer as the translator reads it: tolerant (`.nullish()`, flat blocks) because
 * compatible engines omit fields and add block types. The usage counts are read by the anthropic-messages
 * wire's own usage reader, which knows their traps; only the content and stop reason are read here.
 * https://docs.anthropic.com/en/api/messages and https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */

const contentBlockSchema = z.object({
  type: z.string(),
  text: z.string().nullish(),
  thinking: z.string().nullish(),
  id: z.string().nullish(),
  name: z.string().nullish(),
  input: z.unknown().optional(),
});

export type MessagesContentBlock = z.infer<typeof contentBlockSchema>;

export const messagesResponseSchema = z.object({
  content: z.array(contentBlockSchema).nullish(),
  stop_reason: z.string().nullish(),
});

const contentDeltaSchema = z.object({
  type: z.string(),
  text: z.string().nullish(),
  thinking: z.string().nullish(),
  partial_json: z.string().nullish(),
});

/** An event type this list does not know (new ones may appear, says the vendor) fails to parse and is skipped. */
export const messagesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start') }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish() }).nullish(),
  }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: contentBlockSchema }),
  z.object({ type: z.literal('content_block_delta'), index: z.number(), delta: contentDeltaSchema }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({
    type: z.literal('error'),
    error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
  }),
]);

export type MessagesStreamEvent = z.infer<typeof messagesStreamEventSchema>;

export function parseMessagesStreamEvent(data: string): MessagesStreamEvent | undefined {
  const parsed = messagesStreamEventSchema.safeParse(parseJson(data));
  return parsed.success ? parsed.data : undefined;
}
