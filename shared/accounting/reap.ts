import type { GatewayServices } from '../config/gateway-services.ts';
import type { ExpiredLease } from '../store/admission.ts';
import type { RecordOutcome, RunningRecord } from '../store/usage-records.ts';
import { settle, settlementOutcome } from './settle.ts';

/** The status recorded for a request whose process died before it could say how it ended. */
const diedStatus = 500;

/** A request whose process died while it ran: failed, nothing measured, the reservation kept as the charge. */
function diedEnding(endedAt: Date) {
  return { status: diedStatus, completed: false, usage: undefined, endedAt };
}

/** The outcome of a request found dead, ended when it was found (the migration closes earlier ones the same way). */
export function diedOutcome(record: RunningRecord, foundAt: Date): RecordOutcome {
  return settlementOutcome(record, diedEnding(foundAt));
}

/**
 * Settles requests whose leases expired: their process died between admission and settlement. The reservation
 * stays as the charge, the lease is released and the record closed as failed. Settlement's once-only gate makes
 * this safe to race with a late settlement of the same request. Returns how many this call settled.
 */
export async function reapExpiredLeases(services: GatewayServices, leases: readonly ExpiredLease[]): Promise<number> {
  const now = services.now();
  let reaped = 0;
  for (const lease of leases) {
    // An engine that keeps the admission time with the lease finds the record by it; otherwise the lease's length.
    const startedAt = lease.startedAt ?? new Date(lease.expiresAt - services.config.leaseTtlMs).toISOString();
    const found = await services.store.records.get({ id: lease.requestId, memberId: lease.memberId, startedAt });
    const record: RunningRecord = {
      id: lease.requestId,
      memberId: lease.memberId,
      keyId: lease.keyId,
      provider: found?.provider ?? 'unknown',
      model: found?.model ?? 'unknown',
      connectionId: found?.connectionId ?? 'unknown',
      upstream: found?.upstream ?? 'unknown',
      wire: found?.wire ?? 'unknown',
      stream: found?.stream ?? false,
      startedAt: found?.startedAt ?? startedAt,
      day: lease.day,
      reserved: lease.reserved,
      state: 'running',
    };
    const settled = await settle(services, { record, ...diedEnding(now) });
    if (settled) reaped++;
  }
  return reaped;
}
