import type { GatewayServices } from '../config/gateway-services.ts';
import { pruneStaleBuckets } from '../store/admission-store.ts';
import type { MemberItem } from '../store/control-items.ts';
import { listControlItems } from '../store/control-table.ts';
import { reapExpiredLeases } from './reap.ts';

/**
 * The reaper's pass: settle every request whose lease expired because its process died, and prune the member
 * item's past rate windows and days. Member items are read through the control table's keys-only index, so
 * this touches members, never the usage records.
 */
export async function reapAllExpiredLeases(services: GatewayServices): Promise<number> {
  const members = await listControlItems<MemberItem>(services.control, 'member');
  const now = services.now().getTime();
  let reaped = 0;
  for (const member of members) {
    if (Object.values(member.leases).some((lease) => lease.expiresAt <= now)) {
      reaped += await reapExpiredLeases(services, member);
    }
    await pruneStaleBuckets(services.control, member, services.now());
  }
  return reaped;
}
