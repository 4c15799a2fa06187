import * as z from '../../validation/zod.ts';
import { readAnswer, readAnswerPart } from '../parse-json.ts';
import type { UsageReport } from '../usage-report.ts';
import { converseUsageSchema, usageReportOfConverseUsage } from './bedrock-converse-usage.ts';

/**
 * A Converse answer, read tolerantly: only the fields the gateway uses, each `z.nullish()`, and content blocks flat
 * (each block is a union member named by its one key), so a block type added later is passed over, not refused.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
export const converseContentBlockSchema = z.object({
  text: z.nullish(z.string()),
  toolUse: z.nullish(
    z.object({ toolUseId: z.nullish(z.string()), name: z.nullish(z.string()), input: z.optional(z.unknown()) }),
  ),
  reasoningContent: z.nullish(
    z.object({
      reasoningText: z.nullish(z.object({ text: z.nullish(z.string()), signature: z.nullish(z.string()) })),
      redactedReasoning: z.nullish(z.object({ data: z.nullish(z.string()) })),
    }),
  ),
});

export type ConverseContentBlock = z.infer<typeof converseContentBlockSchema>;

/** Where an answer reports its usage: read apart from the rest, so an answer a translator could not read still counts. */
const answerUsagePart = { usage: z.nullish(converseUsageSchema) };

export const converseAnswerSchema = z.object({
  output: z.nullish(
    z.object({ message: z.nullish(z.object({ content: z.nullish(z.array(converseContentBlockSchema)) })) }),
  ),
  stopReason: z.nullish(z.string()),
  ...answerUsagePart,
});

export type ConverseAnswer = z.infer<typeof converseAnswerSchema>;

const answerUsageSchema = z.object(answerUsagePart);

export function usageOfConverseAnswer(answer: unknown): UsageReport | undefined {
  return readAnswerPart(answerUsageSchema, answer, (parsed) =>
    parsed.usage ? usageReportOfConverseUsage(parsed.usage) : undefined,
  );
}

/** A Converse answer read for translation; a 200 whose body is not one is an upstream fault (502). */
export function parseConverseAnswer(answer: unknown): ConverseAnswer {
  return readAnswer(converseAnswerSchema, answer);
}
