import { parseRequest } from '../../http/parse-request.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';
import { geminiStreamErrorEvent } from './gemini-error.ts';
import { geminiJsonArrayFraming } from './gemini-json-array-stream.ts';
import { geminiMediaParts } from './gemini-media.ts';
import { type GenerateContentRequest, generateContentRequestSchema } from './gemini-request.ts';
import { assertGeminiCostBounded, geminiAnswerCount, geminiRequestedOutput } from './gemini-spend-bounds.ts';
import { encodeGeminiStreamEvent } from './gemini-sse.ts';
import type { GeminiStreamEvent } from './gemini-stream-event.ts';
import { generateContentMethodOf, parseGenerateContentPath, streamResponseFormat } from './generate-content-path.ts';

/**
 * The generate-content client wire: `POST /v1beta/models/<provider/model>:generateContent` and
 * `:streamGenerateContent`, as server-sent events (`alt=sse`) or one JSON array.
 */
export const geminiClientWire: ClientWireFormat<GenerateContentRequest, GeminiStreamEvent> = {
  wire: 'gemini',
  envelope: 'gemini',
  parseRequest(body, address) {
    if (parseGenerateContentPath(address).method === 'streamGenerateContent') streamResponseFormat(address);
    return parseRequest(generateContentRequestSchema, body);
  },
  modelOf: (_request, address) => parseGenerateContentPath(address).model,
  isStream: (_request, address) => parseGenerateContentPath(address).method === 'streamGenerateContent',
  requestedOutput: geminiRequestedOutput,
  answerCount: geminiAnswerCount,
  assertCostBounded: assertGeminiCostBounded,
  mediaParts: geminiMediaParts,
  passThroughDrops: () => undefined,
  streamErrorEvent: geminiStreamErrorEvent,
  encodeEvent: encodeGeminiStreamEvent,
  streamFraming(address) {
    if (generateContentMethodOf(address) !== 'streamGenerateContent') return undefined;
    try {
      return streamResponseFormat(address) === 'json-array' ? geminiJsonArrayFraming : undefined;
    } catch {
      // An `alt` that is refused: the refusal itself comes as any generate-content error does.
      return undefined;
    }
  },
};
