import type { GatewayServices } from '../config/gateway-services.ts';
import { recordSettlement } from '../observability/gateway-telemetry.ts';
import type { UsageReport } from '../providers/usage-report.ts';
import { releaseLease } from '../store/admission-store.ts';
import { addToRollup } from '../store/rollup-store.ts';
import {
  type AccountingSource,
  closeRecord,
  type RecordOutcome,
  type RunningRecord,
} from '../store/usage-record-store.ts';

export interface RequestEnding {
  record: RunningRecord;
  status: number;
  /** The response reached its natural end (not interrupted, cancelled or timed out). */
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
 * Settles once, in order: the lease (the once-only gate, which also moves the day's allowance from the
 * reservation to the charge), then the record, then the rollup the usage view reads.
 */
export async function settle(services: GatewayServices, ending: RequestEnding): Promise<void> {
  const { record } = ending;
  const { charge, source } = chargeFor(ending, record.reserved);
  const released = await releaseLease(services.control, {
    memberId: record.memberId,
    keyId: record.keyId,
    requestId: record.id,
    day: record.day,
    chargeDelta: charge - record.reserved,
  });
  if (!released) return;
  const outcome: RecordOutcome = {
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
  // Past the gate nothing else would ever finish this request, so the record and rollup writes are retried; the
  // close is conditional, so a retry after a write that did land changes nothing.
  const closed = await retried(() => closeRecord(services.usage, record, outcome));
  if (closed) await retried(() => addToRollup(services.rollups, record, outcome));
  recordSettlement(services.config, record, outcome);
}

const settlementAttempts = 4;

async function retried<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= settlementAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}
