import * as z from 'zod';
import { badRequest } from '../http/gateway-error.ts';
import { parseRequest } from '../http/parse-request.ts';
import { renderError } from '../http/render-error.ts';
import type { ClientWireHandler } from './client-wire-handler.ts';
import { parseGenerateContentPath } from './generate-content-path.ts';

/**
 * The generate-content request as clients send it: strict on the fields the gateway reads, open (`.loose()`)
 * for the rest, which reach the provider untouched. The model is in the path, not the body.
 * https://ai.google.dev/api/generate-content#request-body
 */
const generateContentRequestSchema = z
  .object({
    contents: z.array(z.object({ role: z.string().optional(), parts: z.array(z.unknown()) }).loose()).min(1),
    generationConfig: z.object({ maxOutputTokens: z.number().int().positive().nullish() }).loose().nullish(),
    tools: z.array(z.unknown()).optional(),
  })
  .loose();

/** The generate-content client wire (`POST /v1beta/models/<provider/model>:generateContent` and the stream). */
export const geminiHandler: ClientWireHandler = {
  wire: 'gemini',
  envelope: 'gemini',
  validate(body, address) {
    const { method } = parseGenerateContentPath(address);
    // Without `alt=sse` the vendor streams one long JSON array; the gateway relays server-sent events only.
    if (method === 'streamGenerateContent' && address.query.get('alt') !== 'sse') {
      throw badRequest('sse_required', 'Streaming is served as server-sent events only: add ?alt=sse to the URL.');
    }
    parseRequest(generateContentRequestSchema, body);
  },
  modelOf: (_body, address) => parseGenerateContentPath(address).model,
  isStream: (_body, address) => parseGenerateContentPath(address).method === 'streamGenerateContent',
  requestedOutput(body) {
    const config = body.generationConfig as { maxOutputTokens?: unknown } | null | undefined;
    return typeof config?.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined;
  },
  streamRewriter: () => undefined,
  // The vendor ends a failing stream with a chunk holding only the error, in the error response's own shape.
  streamErrorEvent(error) {
    return `data: ${renderError(error, 'gemini').body}\n\n`;
  },
};
