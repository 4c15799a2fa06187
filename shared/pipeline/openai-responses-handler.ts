import * as z from 'zod';
import { parseRequest } from '../http/parse-request.ts';
import type { ClientWireHandler } from './client-wire-handler.ts';

/**
 * The Responses request as clients send it: strict on the fields the gateway reads, open (`.loose()`) for the
 * rest, which reach the provider untouched. `input` may be left out when a request continues a stored response
 * or uses a prompt template, so it is only checked for its shape.
 * https://platform.openai.com/docs/api-reference/responses/create
 */
const responsesRequestSchema = z
  .object({
    model: z.string().min(1).max(256),
    input: z.union([z.string(), z.array(z.unknown())]).optional(),
    stream: z.boolean().nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    tools: z.array(z.unknown()).optional(),
  })
  .loose();

/** The Responses client wire (`POST /v1/responses`). */
export const openaiResponsesHandler: ClientWireHandler = {
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
