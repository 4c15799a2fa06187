import * as z from '../../validation/zod.ts';
import { readAnswer, readAnswerPart } from '../parse-json.ts';
import type { UsageReport } from '../usage-report.ts';
import { usageReportOfGeminiUsage } from './gemini-usage.ts';

/**
 * What the generate-content vendor API returns, read tolerantly: only the fields the gateway uses, each
 * `z.nullish()`. A streamed chunk (`:streamGenerateContent?alt=sse`) has the same shape as a whole response.
 * https://ai.google.dev/api/generate-content#generatecontentresponse
 */

/**
 * `promptTokenCount` already includes `cachedContentTokenCount`. `thoughtsTokenCount` is billed output but not
 * part of `candidatesTokenCount`; `toolUsePromptTokenCount` is billed input but not part of `promptTokenCount`.
 * In a stream every count is cumulative.
 * https://ai.google.dev/api/generate-content#UsageMetadata
 */
export const geminiUsageMetadataSchema = z.object({
  promptTokenCount: z.nullish(z.number()),
  cachedContentTokenCount: z.nullish(z.number()),
  candidatesTokenCount: z.nullish(z.number()),
  thoughtsTokenCount: z.nullish(z.number()),
  toolUsePromptTokenCount: z.nullish(z.number()),
});

export type GeminiUsageMetadata = z.infer<typeof geminiUsageMetadataSchema>;

/** Flat and optional: a part holds exactly one kind of data, and kinds get added. */
const partSchema = z.object({
  text: z.nullish(z.string()),
  thought: z.nullish(z.boolean()),
  functionCall: z.nullish(
    z.object({
      id: z.nullish(z.string()),
      name: z.nullish(z.string()),
      args: z.nullish(z.record(z.string(), z.unknown())),
    }),
  ),
});

const candidateSchema = z.object({
  index: z.nullish(z.number()),
  content: z.nullish(z.object({ role: z.nullish(z.string()), parts: z.nullish(z.array(partSchema)) })),
  /** Present on the last chunk of a candidate only: `STOP`, `MAX_TOKENS`, `SAFETY`, ... */
  finishReason: z.nullish(z.string()),
});

export const geminiErrorSchema = z.object({
  code: z.nullish(z.number()),
  message: z.nullish(z.string()),
  status: z.nullish(z.string()),
});

export type GeminiError = z.infer<typeof geminiErrorSchema>;

/** Where an answer reports its usage: read apart from the rest, so an answer a translator could not read still counts. */
const answerUsagePart = { usageMetadata: z.nullish(geminiUsageMetadataSchema) };

export const geminiResponseSchema = z.object({
  candidates: z.nullish(z.array(candidateSchema)),
  /** Set instead of candidates when the prompt itself was blocked; that response is final too. */
  promptFeedback: z.nullish(z.object({ blockReason: z.nullish(z.string()) })),
  ...answerUsagePart,
  /** A stream that fails after its first byte ends with a chunk holding only this. */
  error: z.nullish(geminiErrorSchema),
});

export type GeminiResponse = z.infer<typeof geminiResponseSchema>;

const answerUsageSchema = z.object(answerUsagePart);

export function usageOfGeminiAnswer(answer: unknown): UsageReport | undefined {
  return readAnswerPart(answerUsageSchema, answer, (parsed) =>
    parsed.usageMetadata ? usageReportOfGeminiUsage(parsed.usageMetadata) : undefined,
  );
}

/** A generate-content answer read for translation; a 200 whose body is not one is an upstream fault (502). */
export function parseGeminiAnswer(answer: unknown): GeminiResponse {
  return readAnswer(geminiResponseSchema, answer);
}
