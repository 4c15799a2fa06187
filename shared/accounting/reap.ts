import type { GatewayServices } from '../config/gateway-services.ts';
import type { MemberItem } from '../store/control-items.ts';
import { getUsageRecord, type RunningRecord } from '../store/usage-record-store.ts';
import { settle } from './settle.ts';

/** The status recorded for a request whose process died before it could say how it ended. */
const diedStatus = 500;

/**
 * Settles the requests of one member whose leases expired: their process died between admission and
 * settlement. The reservation stays as the charge, the lease is released and the record closed as failed.
 * Settlement's once-only gate makes this safe to race with a late settlement of the same request.
 */
export async function reapExpiredLeases(services: GatewayServices, member: MemberItem): Promise<number> {
  const now = services.now();
  let reaped = 0;
  for (const [requestId, lease] of Object.entries(member.leases)) {
    if (lease.expiresAt > now.getTime()) continue;
    const found = await getUsageRecord(services.usage, requestId);
    const record: RunningRecord = {
      id: requestId,
      memberId: member.id,
      keyId: lease.keyId,
      provider: found?.provider ?? 'unknown',
      model: found?.model ?? 'unknown',
      connectionId: found?.connectionId ?? 'unknown',
      upstream: found?.upstream ?? 'unknown',
      wire: found?.wire ?? 'unknown',
      stream: found?.stream ?? false,
      startedAt: found?.startedAt ?? new Date(lease.expiresAt - services.config.leaseTtlMs).toISOString(),
      day: lease.day,
      reserved: lease.reserved,
      state: 'running',
    };
    await settle(services, { record, status: diedStatus, completed: false, usage: undefined, endedAt: now });
    reaped++;
  }
  return reaped;
}
