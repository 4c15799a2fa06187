import type { SseMessage } from '../../sse/sse-event-splitter.ts';
import * as z from '../../validation/zod.ts';
import { isErrorPayload, parseJson, readApart } from '../parse-json.ts';
import {
  type MessagesAnswerOut,
  type MessagesContentBlockOut,
  type MessagesUsageOut,
  messagesContentBlockSchema,
} from './anthropic-messages-answer.ts';
import type { MessagesStopReason } from './anthropic-messages-stop-reason.ts';
import { messagesUsageSchema } from './anthropic-messages-usage.ts';

/**
 * One event of a messages-format stream, by `type`, read tolerantly. An event type this list does not know is
 * not read (the vendor documents that new event types may appear); a pass-through still sends it on. Usage is
 * read apart from the rest of its event, so a count an engine mangles costs the count, not the event.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */

const tolerantUsageSchema = readApart(z.nullish(messagesUsageSchema));

const contentDeltaSchema = z.object({
  type: z.string(),
  text: z.nullish(z.string()),
  partial_json: z.nullish(z.string()),
  thinking: z.nullish(z.string()),
  signature: z.nullish(z.string()),
});

/** `{type:'error', error:{type, message}}`: the body of an error response, and the event a failing stream sends. */
export const messagesErrorSchema = z.object({
  type: z.nullish(z.string()),
  message: z.nullish(z.string()),
});

const streamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message_start'),
    message: z.nullish(z.object({ usage: tolerantUsageSchema })),
  }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.nullish(z.object({ stop_reason: z.nullish(z.string()) })),
    usage: tolerantUsageSchema,
  }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: messagesContentBlockSchema }),
  z.object({ type: z.literal('content_block_delta'), index: z.number(), delta: contentDeltaSchema }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.nullish(messagesErrorSchema) }),
]);

export type MessagesStreamEvent = z.infer<typeof streamEventSchema>;

/**
 * One SSE event of a messages stream, read once; `undefined` for anything it does not know, so a reader never
 * throws. An event named `error`, or any error payload, is the stream's failure whatever else it holds.
 */
export function parseMessagesStreamEvent(message: SseMessage): MessagesStreamEvent | undefined {
  const payload = parseJson(message.data);
  const parsed = streamEventSchema.safeParse(payload);
  if (message.event === 'error' || isErrorPayload(payload)) {
    if (parsed.success && parsed.data.type === 'error') return parsed.data;
    const error = z.object({ error: messagesErrorSchema }).safeParse(payload);
    return { type: 'error', error: error.success ? error.data.error : undefined };
  }
  return parsed.success ? parsed.data : undefined;
}

/** The events the gateway writes, as the vendor streams them and the SDKs assemble them. */
export type MessagesStreamEventOut =
  | { type: 'message_start'; message: Omit<MessagesAnswerOut, 'stop_reason'> & { stop_reason: null } }
  | { type: 'content_block_start'; index: number; content_block: MessagesContentBlockOut }
  | {
      type: 'content_block_delta';
      index: number;
      delta:
        | { type: 'text_delta'; text: string }
        | { type: 'thinking_delta'; thinking: string }
        | { type: 'signature_delta'; signature: string }
        | { type: 'input_json_delta'; partial_json: string };
    }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: MessagesStopReason; stop_sequence: string | null };
      usage: MessagesUsageOut;
    }
  | { type: 'message_stop' }
  | { type: 'error'; error: { type: string; message: string; code?: string } };
