import * as z from '../../validation/zod.ts';
import { parseJson } from '../parse-json.ts';
import { responsesErrorSchema } from './openai-responses-response.ts';

export interface OpenaiResponsesErrorDetails {
  message: string;
  /** The vendor's error type, such as `invalid_request_error`; the code when a compatible engine sends no type. */
  type: string;
  code: string | null;
}

/**
 * An error response body nests the error (`{error:{message, type, code}}`); the mid-stream `error` event is
 * flat (`{type:'error', message, code}`). Both are read here.
 */
const openaiResponsesErrorBodySchema = z.union([
  z.object({ error: responsesErrorSchema }),
  z.extend(responsesErrorSchema, { type: z.literal('error') }),
]);

/** `undefined` when the text is neither shape (a proxy's HTML page, say), so the caller can fall back to the status. */
export function parseOpenaiResponsesError(text: string): OpenaiResponsesErrorDetails | undefined {
  const parsed = openaiResponsesErrorBodySchema.safeParse(parseJson(text));
  if (!parsed.success) return undefined;
  if ('error' in parsed.data) {
    const { message, type, code } = parsed.data.error;
    if (!message && !type && !code) return undefined;
    return {
      message: message ?? 'The upstream provider returned an error.',
      type: type ?? code ?? 'api_error',
      code: code ?? null,
    };
  }
  const { message, code } = parsed.data;
  if (!message && !code) return undefined;
  return {
    message: message ?? 'The upstream provider returned an error.',
    type: code ?? 'api_error',
    code: code ?? null,
  };
}
