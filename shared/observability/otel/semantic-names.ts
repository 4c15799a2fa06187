import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from '@opentelemetry/semantic-conventions/incubating';

/** The GenAI semantic conventions' names the gateway sets, from the conventions' own package. */
export const genAiAttributes = {
  operationName: ATTR_GEN_AI_OPERATION_NAME,
  providerName: ATTR_GEN_AI_PROVIDER_NAME,
  requestModel: ATTR_GEN_AI_REQUEST_MODEL,
  requestMaxTokens: ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  responseModel: ATTR_GEN_AI_RESPONSE_MODEL,
  finishReasons: ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  inputTokens: ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  outputTokens: ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  cacheReadInputTokens: ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  tokenType: ATTR_GEN_AI_TOKEN_TYPE,
  serverAddress: ATTR_SERVER_ADDRESS,
  serverPort: ATTR_SERVER_PORT,
  errorType: ATTR_ERROR_TYPE,
  httpStatus: ATTR_HTTP_RESPONSE_STATUS_CODE,
} as const;

export const genAiMetricNames = {
  tokenUsage: METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  operationDuration: METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  timeToFirstChunk: METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
} as const;

/** The gateway's own attributes, all under one prefix: ids and figures, never a secret. */
export const gatewayAttributes = {
  clientWire: 'gateway.client.wire',
  requestId: 'gateway.request.id',
  memberId: 'gateway.member.id',
  keyId: 'gateway.key.id',
  stream: 'gateway.stream',
  reservation: 'gateway.reservation.tokens',
  charge: 'gateway.charge.tokens',
  accountingSource: 'gateway.accounting.source',
  state: 'gateway.request.state',
  refusalCode: 'gateway.refusal.code',
} as const;

export const gatewayMetricNames = {
  refusals: 'gateway.admission.refusals',
  reservationsOutstanding: 'gateway.reservations.outstanding',
  settlements: 'gateway.settlements',
} as const;
