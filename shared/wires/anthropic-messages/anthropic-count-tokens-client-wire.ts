import { parseRequest } from '../../http/parse-request.ts';
import type { ClientRequestReader } from '../client-wire-format.ts';
import { type CountTokensRequest, countTokensRequestSchema } from './anthropic-messages-request.ts';

/** The Messages token count (`POST /v1/messages/count_tokens`): routed like an inference, never admitted. */
export const anthropicCountTokensClientWire: ClientRequestReader<CountTokensRequest> = {
  wire: 'anthropic-count-tokens',
  envelope: 'anthropic',
  parseRequest: (body) => parseRequest(countTokensRequestSchema, body),
  modelOf: (request) => request.model,
};
