import type { GatewayServices } from '../config/gateway-services.ts';
import { reapExpiredLeases } from './reap.ts';

/**
 * The reaper's pass: settle every request whose lease expired because its process died, and prune the past rate
 * windows and days from the admission state. Returns how many requests it settled.
 */
export async function reapAllExpiredLeases(services: GatewayServices): Promise<number> {
  const now = services.now();
  const reaped = await reapExpiredLeases(services, await services.store.admission.expiredLeases(now.getTime()));
  await services.store.admission.pruneStale(now);
  return reaped;
}

/**
 * At the start of the one process that owns its store (the local host with its embedded store): every lease still
 * held belongs to a process that died, so each is settled now, by the reaper's own rule (reap.ts: failed, the
 * reservation as the charge) instead of when its lease expires, and the member's concurrency is free at once.
 * Never for a store other live processes share (a DynamoDB endpoint of several gateways): their leases are alive.
 * Returns how many requests it settled (each one's lease released with it).
 */
export async function settleLeftRunning(services: GatewayServices): Promise<number> {
  return reapExpiredLeases(services, await services.store.admission.expiredLeases(Number.MAX_SAFE_INTEGER));
}
