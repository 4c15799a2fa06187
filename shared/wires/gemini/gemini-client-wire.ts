import { badRequest } from '../../http/gateway-error.ts';
import { parseRequest } from '../../http/parse-request.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';
import { geminiStreamErrorEvent } from './gemini-error.ts';
import { type GenerateContentRequest, generateContentRequestSchema } from './gemini-request.ts';
import { encodeGeminiStreamEvent } from './gemini-sse.ts';
import type { GeminiStreamEvent } from './gemini-stream-event.ts';
import { parseGenerateContentPath } from './generate-content-path.ts';

/** The generate-content client wire (`POST /v1beta/models/<provider/model>:generateContent` and the stream). */
export const geminiClientWire: ClientWireFormat<GenerateContentRequest, GeminiStreamEvent> = {
  wire: 'gemini',
  envelope: 'gemini',
  parseRequest(body, address) {
    const { method } = parseGenerateContentPath(address);
    // Without `alt=sse` the vendor streams one long JSON array; the gateway relays server-sent events only.
    if (method === 'streamGenerateContent' && address.query.get('alt') !== 'sse') {
      throw badRequest('sse_required', 'Streaming is served as server-sent events only: add ?alt=sse to the URL.');
    }
    return parseRequest(generateContentRequestSchema, body);
  },
  modelOf: (_request, address) => parseGenerateContentPath(address).model,
  isStream: (_request, address) => parseGenerateContentPath(address).method === 'streamGenerateContent',
  requestedOutput: (request) => request.generationConfig?.maxOutputTokens ?? undefined,
  passThroughDrops: () => undefined,
  streamErrorEvent: geminiStreamErrorEvent,
  encodeEvent: encodeGeminiStreamEvent,
};
