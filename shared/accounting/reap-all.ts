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
