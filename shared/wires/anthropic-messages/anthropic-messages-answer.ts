import * as z from '../../validation/zod.ts';
import { readAnswer, readAnswerPart } from '../parse-json.ts';
import type { UsageReport } from '../usage-report.ts';
import type { MessagesStopReason } from './anthropic-messages-stop-reason.ts';
import { messagesUsageSchema, usageReportOfMessagesUsage } from './anthropic-messages-usage.ts';

/**
 * The messages-format answer, read tolerantly: only the fields the gateway uses, each `z.nullish()`, and content
 * blocks flat rather than a union per type, because compatible engines omit fields and add block types.
 * https://docs.anthropic.com/en/api/messages
 */
export const messagesContentBlockSchema = z.object({
  type: z.string(),
  text: z.nullish(z.string()),
  thinking: z.nullish(z.string()),
  // A thinking block's proof that it is unchanged, and a redacted thinking block's encrypted reasoning.
  signature: z.nullish(z.string()),
  data: z.nullish(z.string()),
  id: z.nullish(z.string()),
  name: z.nullish(z.string()),
  input: z.optional(z.unknown()),
});

export type MessagesContentBlock = z.infer<typeof messagesContentBlockSchema>;

/** Where an answer reports its usage: read apart from the rest, so an answer a translator could not read still counts. */
const answerUsagePart = { usage: z.nullish(messagesUsageSchema) };

export const messagesAnswerSchema = z.object({
  content: z.nullish(z.array(messagesContentBlockSchema)),
  stop_reason: z.nullish(z.string()),
  ...answerUsagePart,
});

export type MessagesAnswer = z.infer<typeof messagesAnswerSchema>;

const answerUsageSchema = z.object(answerUsagePart);

export function usageOfMessagesAnswer(answer: unknown): UsageReport | undefined {
  return readAnswerPart(answerUsageSchema, answer, (parsed) =>
    parsed.usage ? usageReportOfMessagesUsage(parsed.usage) : undefined,
  );
}

/** A messages answer read for translation; a 200 whose body is not one is an upstream fault (502). */
export function parseMessagesAnswer(answer: unknown): MessagesAnswer {
  return readAnswer(messagesAnswerSchema, answer);
}

/**
 * A messages answer as the gateway writes it, as the official SDKs read it: each block in its own shape, and the
 * usage split the vendor's way (input without cache reads and writes).
 */
export type MessagesContentBlockOut =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export type MessagesUsageOut = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
};

export type MessagesAnswerOut = {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessagesContentBlockOut[];
  stop_reason: MessagesStopReason;
  stop_sequence: string | null;
  usage: MessagesUsageOut;
};

/** The message id for a gateway request, in the vendor's `msg_` form. */
export function messagesAnswerId(requestId: string): string {
  return `msg_${requestId}`;
}
