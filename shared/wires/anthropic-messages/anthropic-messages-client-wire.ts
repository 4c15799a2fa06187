import { parseRequest } from '../../http/parse-request.ts';
import { renderError } from '../../http/render-error.ts';
import * as z from '../../validation/zod.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';

const messageSchema = z.looseObject({
  role: z.string().check(z.minLength(1)),
  content: z.union([z.string(), z.array(z.unknown())]),
});

/**
 * The Messages request as clients send it: strict on the fields the gateway reads, open (`z.looseObject`) for the
 * rest, which reach the provider untouched. `max_tokens` is required by the vendor but not by every compatible
 * engine, so its absence is left to the upstream to judge.
 * https://docs.anthropic.com/en/api/messages
 */
export const messagesRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  messages: z.array(messageSchema).check(z.minLength(1)),
  max_tokens: z.optional(z.number().check(z.int(), z.positive())),
  stream: z.optional(z.boolean()),
  tools: z.optional(z.array(z.unknown())),
});

/** The Messages client wire (`POST /v1/messages`). */
export const anthropicMessagesClientWire: ClientWireFormat = {
  wire: 'anthropic-messages',
  envelope: 'anthropic',
  validate(body) {
    parseRequest(messagesRequestSchema, body);
  },
  modelOf: (body) => String(body.model),
  isStream: (body) => body.stream === true,
  requestedOutput(body) {
    return typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  },
  streamRewriter: () => undefined,
  // The vendor's mid-stream error: an `error` event carrying the same body as an error response.
  streamErrorEvent(error) {
    return `event: error\ndata: ${renderError(error, 'anthropic').body}\n\n`;
  },
};
