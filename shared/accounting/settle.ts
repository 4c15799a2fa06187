import type { GatewayServices } from '../config/gateway-services.ts';
import { recordSettlement } from '../observability/gateway-telemetry.ts';
import type { AccountingSource, ClosedRequest, RecordOutcome, RunningRecord } from '../store/usage-records.ts';
import type { UsageReport } from '../wires/usage-report.ts';

export interface RequestEnding {
  record: RunningRecord;
  status: number;
  /**
   * The answer came whole: a whole answer that is one, or a stream that reached its wire's closing event (not cut
   * off by the upstream, cancelled or timed out first).
   */
  completed: boolean;
  usage: UsageReport | undefined;
  endedAt: Date;
  /** Measured on the monotonic clock by the process that ran the request; absent when it died (the reaper). */
  durationMs?: number | undefined;
}

/**
 * The charge of a finished request: measured usage when the provider reported input and output of a complete
 * response (cached input is already inside input and is not added again); otherwise the reservation stays.
 */
function chargeFor(
  ending: Pick<RequestEnding, 'completed' | 'usage'>,
  reserved: number,
): { charge: number; source: AccountingSource } {
  const usage = ending.usage;
  if (ending.completed && usage && usage.inputTokens !== null && usage.outputTokens !== null) {
    return { charge: usage.inputTokens + usage.outputTokens, source: 'measured' };
  }
  return { charge: reserved, source: 'conservative' };
}

/**
 * How a request ended, as its record keeps it: the one rule for settlement, the reaper and the migration.
 * `completed` only when the answer came whole with a status below 400; `failed` for every other ending, an answer
 * cut off after its status 200 went out included (docs/request-states.md has the table).
 */
export function settlementOutcome(record: RunningRecord, ending: Omit<RequestEnding, 'record'>): RecordOutcome {
  const { charge, source } = chargeFor(ending, record.reserved);
  return {
    state: ending.completed && ending.status < 400 ? 'completed' : 'failed',
    status: ending.status,
    endedAt: ending.endedAt.toISOString(),
    durationMs: ending.durationMs ?? Math.max(0, ending.endedAt.getTime() - Date.parse(record.startedAt)),
    inputTokens: ending.usage?.inputTokens ?? null,
    cachedInputTokens: ending.usage?.cachedInputTokens ?? null,
    outputTokens: ending.usage?.outputTokens ?? null,
    charge,
    source,
  };
}

/**
 * Settles once: the store releases the lease (the once-only gate, which also moves the day's allowance from the
 * reservation to the charge) and closes the record — at most two writes. The rollups the usage view reads are not
 * written here: the closed request is handed to the rollup folder, which adds requests in batches off the request
 * path (on AWS the records stream does). Returns whether this call settled the request (false: settled already).
 */
export async function settle(services: GatewayServices, ending: RequestEnding): Promise<boolean> {
  const { record } = ending;
  const closed: ClosedRequest = { record, outcome: settlementOutcome(record, ending) };
  const settlement = await services.store.admission.settle(closed);
  if (!settlement.released) return false;
  if (settlement.closed) services.rollupFolder.add(closed);
  recordSettlement(services.config, record, closed.outcome);
  return true;
}
