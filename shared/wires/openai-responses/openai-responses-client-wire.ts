import { parseRequest } from '../../http/parse-request.ts';
import * as z from '../../validation/zod.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';

/**
 * The Responses request as clients send it: strict on the fields the gateway reads, open (`z.looseObject`) for the
 * rest, which reach the provider untouched. `input` may be left out when a request continues a stored response
 * or uses a prompt template, so it is only checked for its shape.
 * https://platform.openai.com/docs/api-reference/responses/create
 */
const responsesRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  input: z.optional(z.union([z.string(), z.array(z.unknown())])),
  stream: z.nullish(z.boolean()),
  max_output_tokens: z.nullish(z.number().check(z.int(), z.positive())),
  tools: z.optional(z.array(z.unknown())),
});

/** The Responses client wire (`POST /v1/responses`). */
export const openaiResponsesClientWire: ClientWireFormat = {
  wire: 'openai-responses',
  envelope: 'openai',
  validate(body) {
    parseRequest(responsesRequestSchema, body);
  },
  modelOf: (body) => String(body.model),
  isStream: (body) => body.stream === true,
  requestedOutput(body) {
    return typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
  },
  streamRewriter: () => undefined,
  // The Responses stream's own error event: flat, `code` and `message` on the event itself.
  streamErrorEvent(error) {
    const event = { type: 'error', code: error.code, message: error.message, param: null };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  },
};
