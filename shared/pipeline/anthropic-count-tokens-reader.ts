import * as z from 'zod';
import { parseRequest } from '../http/parse-request.ts';
import type { ClientRequestReader } from './client-wire-handler.ts';

/**
 * The token-count request: the Messages request without `max_tokens` and `stream`. Only `model` and
 * `messages` are read; the rest (system, tools, thinking, ...) reaches the provider untouched.
 * https://docs.anthropic.com/en/api/messages-count-tokens
 */
const countTokensRequestSchema = z
  .object({
    model: z.string().min(1).max(256),
    messages: z.array(z.object({ role: z.string().min(1) }).loose()).min(1),
  })
  .loose();

/** The Messages token count (`POST /v1/messages/count_tokens`): routed like an inference, never admitted. */
export const anthropicCountTokensReader: ClientRequestReader = {
  wire: 'anthropic-count-tokens',
  envelope: 'anthropic',
  validate(body) {
    parseRequest(countTokensRequestSchema, body);
  },
  modelOf: (body) => String(body.model),
};
