/**
 * What the functions emit and the stack's alarms read, named once so the two cannot drift apart. Every metric
 * carries the one `service` dimension (emf-line.ts writes it); the namespace names the stage.
 */
export const metricsServiceName = 'model-gateway';

export const gatewayMetricNames = {
  /** Every response a function URL entry answered, whatever its status. */
  responses: 'Responses',
  /** Responses with a 5xx status, counted 0 or 1 per response so that their average is the 5xx rate. */
  serverErrorResponses: 'ServerErrorResponses',
  /** Admitted requests settled, by their own function or by the reaper. */
  settledRequests: 'SettledRequests',
  inputTokens: 'InputTokens',
  cachedInputTokens: 'CachedInputTokens',
  outputTokens: 'OutputTokens',
  chargedTokens: 'ChargedTokens',
  requestDuration: 'RequestDuration',
  /** Requests the reaper settled because their function died before it could: the backlog it cleared. */
  reapedRequests: 'ReapedRequests',
} as const;
