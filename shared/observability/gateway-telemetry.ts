import type { GatewayConfig } from '../config/gateway-config.ts';
import type { RecordOutcome, RunningRecord } from '../store/usage-records.ts';
import { emfLine, type MetricValue } from './emf-line.ts';
import { logger } from './logger.ts';
import { gatewayMetricNames, metricsServiceName } from './metric-names.ts';

/** CloudWatch's units, by the names the calls below use. */
const MetricUnit = { Count: 'Count', Milliseconds: 'Milliseconds' } as const;

/**
 * Writes one EMF line, or nothing when the host configured no namespace (the local host): EMF lines only mean
 * something where CloudWatch Logs reads them. One line holds exactly one event's values even when a process (the
 * local host) serves many requests at once.
 */
function emit(config: GatewayConfig, values: readonly MetricValue[], requestId?: string): void {
  const namespace = config.metricsNamespace;
  if (namespace === undefined) return;
  const metadata: Record<string, string> = requestId === undefined ? {} : { requestId };
  process.stdout.write(`${emfLine(namespace, metricsServiceName, values, metadata, Date.now())}\n`);
}

/** One response of a function URL entry; counted for every request, also those refused before admission. */
export function recordResponse(config: GatewayConfig, status: number): void {
  emit(config, [
    [gatewayMetricNames.responses, MetricUnit.Count, 1],
    [gatewayMetricNames.serverErrorResponses, MetricUnit.Count, status >= 500 ? 1 : 0],
  ]);
}

/**
 * The one log line and the metrics of a settled request: ids, names, status, tokens and duration. Never a body,
 * a key or a credential: the record holds none.
 */
export function recordSettlement(config: GatewayConfig, record: RunningRecord, outcome: RecordOutcome): void {
  // Once per request: the flat line, the same bytes as `info` prints (flat-line-logger.ts).
  logger.infoFlat('request settled', {
    requestId: record.id,
    keyId: record.keyId,
    memberId: record.memberId,
    provider: record.provider,
    model: record.model,
    upstream: record.upstream,
    wire: record.wire,
    stream: record.stream,
    status: outcome.status,
    state: outcome.state,
    inputTokens: outcome.inputTokens,
    cachedInputTokens: outcome.cachedInputTokens,
    outputTokens: outcome.outputTokens,
    charge: outcome.charge,
    accountingSource: outcome.source,
    durationMs: outcome.durationMs,
  });
  const tokens: MetricValue[] = [];
  // A count the provider did not report stays out of the sums rather than counting as 0.
  if (outcome.inputTokens !== null) {
    tokens.push([gatewayMetricNames.inputTokens, MetricUnit.Count, outcome.inputTokens]);
  }
  if (outcome.cachedInputTokens !== null) {
    tokens.push([gatewayMetricNames.cachedInputTokens, MetricUnit.Count, outcome.cachedInputTokens]);
  }
  if (outcome.outputTokens !== null) {
    tokens.push([gatewayMetricNames.outputTokens, MetricUnit.Count, outcome.outputTokens]);
  }
  emit(
    config,
    [
      [gatewayMetricNames.settledRequests, MetricUnit.Count, 1],
      [gatewayMetricNames.chargedTokens, MetricUnit.Count, outcome.charge],
      [gatewayMetricNames.requestDuration, MetricUnit.Milliseconds, outcome.durationMs],
      ...tokens,
    ],
    record.id,
  );
}

/** One pass of the reaper; `reaped` is how many dead requests it settled. */
export function recordReaperPass(config: GatewayConfig, reaped: number): void {
  if (reaped > 0) logger.info('reaper settled requests whose function died', { reaped });
  emit(config, [[gatewayMetricNames.reapedRequests, MetricUnit.Count, reaped]]);
}
