import * as z from 'zod';
import { parseJson } from '../parse-json.ts';

/**
 * What the generate-content vendor API returns, read tolerantly: only the fields the gateway uses, each
 * `.nullish()`. A streamed chunk (`:streamGenerateContent?alt=sse`) has the same shape as a whole response.
 * https://ai.google.dev/api/generate-content#generatecontentresponse
 */

/**
 * `promptTokenCount` already includes `cachedContentTokenCount`. `thoughtsTokenCount` is billed output but not
 * part of `candidatesTokenCount`; `toolUsePromptTokenCount` is billed input but not part of `promptTokenCount`.
 * In a stream every count is cumulative.
 * https://ai.google.dev/api/generate-content#UsageMetadata
 */
export const geminiUsageMetadataSchema = z.object({
  promptTokenCount: z.number().nullish(),
  cachedContentTokenCount: z.number().nullish(),
  candidatesTokenCount: z.number().nullish(),
  thoughtsTokenCount: z.number().nullish(),
  toolUsePromptTokenCount: z.number().nullish(),
});

export type GeminiUsageMetadata = z.infer<typeof geminiUsageMetadataSchema>;

/** Flat and optional: a part holds exactly one kind of data, and kinds get added. */
const partSchema = z.object({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  functionCall: z
    .object({
      id: z.string().nullish(),
      name: z.string().nullish(),
      args: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
});

const candidateSchema = z.object({
  index: z.number().nullish(),
  content: z.object({ role: z.string().nullish(), parts: z.array(partSchema).nullish() }).nullish(),
  /** Present on the last chunk of a candidate only: `STOP`, `MAX_TOKENS`, `SAFETY`, ... */
  finishReason: z.string().nullish(),
});

export const geminiErrorSchema = z.object({
  code: z.number().nullish(),
  message: z.string().nullish(),
  status: z.string().nullish(),
});

export const geminiResponseSchema = z.object({
  candidates: z.array(candidateSchema).nullish(),
  /** Set instead of candidates when the prompt itself was blocked; that response is final too. */
  promptFeedback: z.object({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: geminiUsageMetadataSchema.nullish(),
  /** A stream that fails after its first byte ends with a chunk holding only this. */
  error: geminiErrorSchema.nullish(),
});

export type GeminiResponse = z.infer<typeof geminiResponseSchema>;

/** Parses one SSE `data` payload; `undefined` for anything else, so a reader never throws. */
export function parseGeminiStreamChunk(data: string): GeminiResponse | undefined {
  const parsed = geminiResponseSchema.safeParse(parseJson(data));
  return parsed.success ? parsed.data : undefined;
}
