import type { GatewayError } from '../../http/gateway-error.ts';
import * as z from '../../validation/zod.ts';
import { parseJson } from '../parse-json.ts';
import { geminiErrorSchema } from './gemini-response.ts';
import type { GeminiStreamEvent } from './gemini-stream-event.ts';

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

/**
 * The generate-content error envelope, `{error:{code, message, status}}`, with the gateway's machine-readable code
 * as `reason`. https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
export function geminiErrorBody(error: GatewayError) {
  return {
    error: { code: error.status, message: error.message, status: geminiStatus(error.status), reason: error.code },
  };
}

/** google.rpc.Code names, as generate-content clients expect them. */
function geminiStatus(status: number): string {
  if (status === 400 || status === 413) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  if (status === 502 || status === 503) return 'UNAVAILABLE';
  return 'INTERNAL';
}

/** The vendor ends a failing stream with a chunk holding only the error, in the error response's own shape. */
export function geminiStreamErrorEvent(error: GatewayError): GeminiStreamEvent {
  return { type: 'error', error: geminiErrorBody(error).error };
}
