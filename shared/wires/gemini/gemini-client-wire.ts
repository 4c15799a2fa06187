import { badRequest } from '../../http/gateway-error.ts';
import { parseRequest } from '../../http/parse-request.ts';
import { renderError } from '../../http/render-error.ts';
import * as z from '../../validation/zod.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';
import { parseGenerateContentPath } from './generate-content-path.ts';

/**
 * The generate-content request as clients send it: strict on the fields the gateway reads, open (`z.looseObject`)
 * for the rest, which reach the provider untouched. The model is in the path, not the body.
 * https://ai.google.dev/api/generate-content#request-body
 */
const generateContentRequestSchema = z.looseObject({
  contents: z.array(z.looseObject({ role: z.optional(z.string()), parts: z.array(z.unknown()) })).check(z.minLength(1)),
  generationConfig: z.nullish(z.looseObject({ maxOutputTokens: z.nullish(z.number().check(z.int(), z.positive())) })),
  tools: z.optional(z.array(z.unknown())),
});

/** The generate-content client wire (`POST /v1beta/models/<provider/model>:generateContent` and the stream). */
export const geminiClientWire: ClientWireFormat = {
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
