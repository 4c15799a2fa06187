import * as z from '../../validation/zod.ts';
import { readAnswer, readAnswerPart } from '../parse-json.ts';
import type { UsageReport } from '../usage-report.ts';
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
