import { parseRequest } from '../../http/parse-request.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';
import { responsesStreamErrorEvent } from './openai-responses-error.ts';
import { responsesMediaParts } from './openai-responses-media.ts';
import { type ResponsesRequest, responsesRequestSchema } from './openai-responses-request.ts';
import { assertResponsesCostBounded } from './openai-responses-spend-bounds.ts';
import { encodeResponsesStreamEvent } from './openai-responses-sse.ts';
import type { ResponsesStreamEvent, ResponsesStreamEventOut } from './openai-responses-stream-event.ts';

/** The Responses client wire (`POST /v1/responses`). */
export const openaiResponsesClientWire: ClientWireFormat<
  ResponsesRequest,
  ResponsesStreamEventOut,
  ResponsesStreamEvent
> = {
  wire: 'openai-responses',
  envelope: 'openai',
  parseRequest: (body) => parseRequest(responsesRequestSchema, body),
  modelOf: (request) => request.model,
  isStream: (request) => request.stream === true,
  requestedOutput: (request) => request.max_output_tokens ?? undefined,
  answerCount: () => 1,
  assertCostBounded: assertResponsesCostBounded,
  mediaParts: responsesMediaParts,
  passThroughDrops: () => undefined,
  streamErrorEvent: responsesStreamErrorEvent,
  encodeEvent: encodeResponsesStreamEvent,
};
