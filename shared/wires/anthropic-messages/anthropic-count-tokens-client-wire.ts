import { parseRequest } from '../../http/parse-request.ts';
import type { TokenCountWireFormat } from '../client-wire-format.ts';
import { type CountTokensRequest, countTokensRequestSchema } from './anthropic-messages-request.ts';

/**
 * The Messages token count (`POST /v1/messages/count_tokens`): routed like an inference, never admitted. A
 * messages-format connection counts it itself; for a model on any other connection the gateway estimates,
 * answering in the same shape. https://docs.anthropic.com/en/api/messages-count-tokens
 */
export const anthropicCountTokensClientWire: TokenCountWireFormat<CountTokensRequest> = {
  wire: 'anthropic-count-tokens',
  envelope: 'anthropic',
  parseRequest: (body) => parseRequest(countTokensRequestSchema, body),
  modelOf: (request) => request.model,
  countingWire: 'anthropic-messages',
  estimatedCountAnswer: (tokens) => ({ input_tokens: tokens }),
};
