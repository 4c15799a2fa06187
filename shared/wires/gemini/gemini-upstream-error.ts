import * as z from '../../validation/zod.ts';
import { parseJson } from '../parse-json.ts';
import { geminiErrorSchema } from './gemini-response.ts';

export interface GeminiErrorDetails {
  message: string;
  /** The google.rpc status name, such as `INVALID_ARGUMENT` or `RESOURCE_EXHAUSTED`. */
  type: string;
  /** The HTTP status the vendor put in the body, when it did. */
  code: number | null;
}

/**
 * `:streamGenerateContent` without `alt=sse` answers errors as a one-element JSON array, so both that and the
 * plain `{error:{...}}` object are read.
 */
const geminiErrorBodySchema = z.union([
  z.object({ error: geminiErrorSchema }),
  z.tuple([z.object({ error: geminiErrorSchema })], z.unknown()),
]);

/**
 * Reads `{error:{code, message, status}}`, the shape of both an error response body and the chunk that ends a
 * stream failing midway. `undefined` when the text is not that shape, so the caller can fall back to the status.
 */
export function parseGeminiError(text: string): GeminiErrorDetails | undefined {
  const parsed = geminiErrorBodySchema.safeParse(parseJson(text));
  if (!parsed.success) return undefined;
  const { code, message, status } = Array.isArray(parsed.data) ? parsed.data[0].error : parsed.data.error;
  if (!message && !status) return undefined;
  return {
    message: message ?? 'The upstream provider returned an error.',
    type: status ?? 'UNKNOWN',
    code: code ?? null,
  };
}
