import type { SseMessage } from '../../sse/sse-event-splitter.ts';
import * as z from '../../validation/zod.ts';
import { isErrorPayload, parseJson } from '../parse-json.ts';
import { type GeminiError, type GeminiResponse, geminiErrorSchema, geminiResponseSchema } from './gemini-response.ts';

/**
 * One event of a `:streamGenerateContent?alt=sse` stream: a chunk, which has the shape of a whole response, or
 * the chunk holding only `{"error": {...}}` that ends a stream failing midway.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export type GeminiStreamEvent = { type: 'chunk'; chunk: GeminiResponse } | { type: 'error'; error: GeminiError };

const errorChunkSchema = z.object({ error: geminiErrorSchema });

/** One SSE event of a generate-content stream, read once; `undefined` for anything else, so a reader never throws. */
export function parseGeminiStreamEvent(message: SseMessage): GeminiStreamEvent | undefined {
  const payload = parseJson(message.data);
  if (message.event === 'error' || isErrorPayload(payload)) {
    const failure = errorChunkSchema.safeParse(payload);
    return { type: 'error', error: failure.success ? failure.data.error : {} };
  }
  const chunk = geminiResponseSchema.safeParse(payload);
  return chunk.success ? { type: 'chunk', chunk: chunk.data } : undefined;
}
