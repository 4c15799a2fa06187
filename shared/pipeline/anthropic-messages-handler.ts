import * as z from 'zod';
import { parseRequest } from '../http/parse-request.ts';
import { renderError } from '../http/render-error.ts';
import type { ClientWireHandler } from './client-wire-handler.ts';

const messageSchema = z
  .object({
    role: z.string().min(1),
    content: z.union([z.string(), z.array(z.unknown())]),
  })
  .loose();

/**
 * The Messages request as clients send it: strict on the fields the gateway reads, open (`.loose()`) for the
 * rest, which reach the provider untouched. `max_tokens` is required by the vendor but not by every compatible
 * engine, so its absence is left to the upstream to judge.
 * https://docs.anthropic.com/en/api/messages
 */
export const messagesRequestSchema = z
  .object({
    model: z.string().min(1).max(256),
    messages: z.array(messageSchema).min(1),
    max_tokens: z.number().int().positive().optional(),
    stream: z.boolean().optional(),
    tools: z.array(z.unknown()).optional(),
  })
  .loose();

/** The Messages client wire (`POST /v1/messages`). */
export const anthropicMessagesHandler: ClientWireHandler = {
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
