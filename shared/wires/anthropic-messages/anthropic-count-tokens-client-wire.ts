import { parseRequest } from '../../http/parse-request.ts';
import * as z from '../../validation/zod.ts';
import type { ClientRequestReader } from '../client-wire-format.ts';

/**
 * The token-count request: the Messages request without `max_tokens` and `stream`. Only `model` and
 * `messages` are read; the rest (system, tools, thinking, ...) reaches the provider untouched.
 * https://docs.anthropic.com/en/api/messages-count-tokens
 */
const countTokensRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  messages: z.array(z.looseObject({ role: z.string().check(z.minLength(1)) })).check(z.minLength(1)),
});

/** The Messages token count (`POST /v1/messages/count_tokens`): routed like an inference, never admitted. */
export const anthropicCountTokensClientWire: ClientRequestReader = {
  wire: 'anthropic-count-tokens',
  envelope: 'anthropic',
  validate(body) {
    parseRequest(countTokensRequestSchema, body);
  },
  modelOf: (body) => String(body.model),
};
