import { parseRequest } from '../../http/parse-request.ts';
import type { TokenCountWireFormat } from '../client-wire-format.ts';
import { type CountTokensRequest, countTokensRequestSchema } from './gemini-request.ts';
import { parseGenerateContentPath } from './generate-content-path.ts';

/**
 * Google's token count (`POST /v1beta/models/<provider/model>:countTokens`): routed like an inference, never
 * admitted. A generate-content connection counts it itself; for a model on any other connection the gateway
 * estimates, answering in the same shape. https://ai.google.dev/api/tokens#method:-models.counttokens
 */
export const geminiCountTokensClientWire: TokenCountWireFormat<CountTokensRequest> = {
  wire: 'gemini-count-tokens',
  envelope: 'gemini',
  parseRequest: (body) => parseRequest(countTokensRequestSchema, body),
  modelOf: (_request, address) => parseGenerateContentPath(address).model,
  countingWire: 'gemini',
  estimatedCountAnswer: (tokens) => ({ totalTokens: tokens }),
};
