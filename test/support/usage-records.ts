import { setImmediate as nextTurn } from 'node:timers/promises';
import { deadlineIn } from '../../shared/clock/monotonic-deadline.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import type { MemberAccount } from '../../shared/store/control-items.ts';
import type { UsageRecord } from '../../shared/store/usage-records.ts';

/**
 * Waits until settlement has closed a request's record. Settlement runs in the host's background once the
 * response has ended, so it waits for the settlements running now rather than for a while; a settlement not
 * started yet (the client can read the last byte before the relay has ended) starts within a turn or two.
 */
export async function settledRecord(services: GatewayServices, requestId: string, timeoutMs = 5_000) {
  const deadline = deadlineIn(timeoutMs);
  for (;;) {
    await Promise.allSettled([...services.background]);
    const record = (await allRecords(services)).find((candidate) => candidate.id === requestId);
    if (record && record.state !== 'running') return record;
    if (deadline.remainingMs() === 0) throw new Error(`record ${requestId} was not settled: ${JSON.stringify(record)}`);
    await nextTurn();
  }
}

/**
 * Every record of the team that started in the week up to a day after the gateway's calendar now (where a test's
 * requests are, real or pinned clock), newest first. The usage view itself reads bounded periods only.
 */
export async function allRecords(services: GatewayServices): Promise<UsageRecord[]> {
  const now = services.now().getTime();
  const from = new Date(now - 7 * 86_400_000).toISOString();
  const to = new Date(now + 86_400_000).toISOString();
  return (await services.store.records.newest({ from, to })).records;
}

/** Waits for every background settlement of the host, then reads the member's admission state. */
export async function memberAfterSettlement(services: GatewayServices, memberId: string): Promise<MemberAccount> {
  await Promise.allSettled([...services.background]);
  const member = await services.store.admission.account(memberId);
  if (!member) throw new Error(`member ${memberId} is missing`);
  return member;
}

/**
 * Every record, and the hourly rollups of the days around the gateway's calendar now, each in a stable order:
 * what a test compares before and after something that must not touch them.
 */
export async function usageSnapshot(services: GatewayServices): Promise<{ records: string[]; rollups: string[] }> {
  const now = services.now().getTime();
  const hour = (at: number) => new Date(at).toISOString().slice(0, 13);
  await services.rollupFolder.flush();
  const rollups = await services.store.rollups.read({
    by: 'hour',
    first: hour(now - 86_400_000),
    last: hour(now + 86_400_000),
  });
  const stable = (items: readonly object[]) =>
    items.map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();
  return { records: stable(await allRecords(services)), rollups: stable(rollups) };
}
