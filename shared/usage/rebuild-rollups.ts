import type { GatewayServices } from '../config/gateway-services.ts';
import { badRequest, GatewayError } from '../http/gateway-error.ts';
import type { RollupRebuild } from '../store/store-port.ts';

/** Days one admin request may rebuild: the CLI sends a long range as several requests, so each stays short. */
export const maxRebuildDays = 7;
const dayMs = 86_400_000;

/**
 * How long after a UTC day ends its rollups may still move: a request that started in it may run until its
 * deadline, and one whose process died is settled by the reaper once its lease expires (at most one lease length,
 * plus the reaper's five-minute period on AWS). Rebuilding earlier could race those last settlements.
 */
export const settledAfterDayEndMs = (services: GatewayServices) => services.config.leaseTtlMs + 5 * 60_000;

/**
 * Rebuilds the rollups of whole UTC days from their records (`usage rebuild-rollups`): after a crash lost what the
 * in-process folder held, after the stream consumer gave a batch up to its dead-letter queue, or to check the
 * rollups against the records. Refuses a day whose requests may still settle (409 `rebuild_day_open`), and any day
 * while the migration of the earlier layout is under way (409 `migration_in_progress`): a rebuild then would count
 * records the migration has carried but not yet folded, and its fold would add them a second time.
 */
export async function rebuildRollups(
  services: GatewayServices,
  days: { from: string; to: string },
): Promise<RollupRebuild> {
  const first = Date.parse(days.from);
  const last = Date.parse(days.to);
  if (last < first) throw badRequest('invalid_request', `--to ${days.to} is before --from ${days.from}.`);
  if ((last - first) / dayMs + 1 > maxRebuildDays) {
    throw badRequest('invalid_request', `At most ${maxRebuildDays} days are rebuilt per request.`);
  }
  const settledBy = last + dayMs + settledAfterDayEndMs(services);
  if (settledBy > services.now().getTime()) {
    throw new GatewayError(
      409,
      'rebuild_day_open',
      `Requests of ${days.to} may still settle until ${new Date(settledBy).toISOString()}; rebuild it after that.`,
    );
  }
  const migration = await services.store.earlierRecords.progress(services.now());
  if (migration.startedAt !== null && migration.state !== 'complete') {
    throw new GatewayError(
      409,
      'migration_in_progress',
      'The usage history of the earlier layout is being carried in; rebuild rollups once ' +
        '`usage migrate-earlier-records --status` says it is complete.',
    );
  }
  // What settled a moment ago may still wait in the folder: in first, so nothing is counted twice after.
  await services.rollupFolder.flush();
  return services.store.rollups.rebuild({ first: days.from, last: days.to });
}
