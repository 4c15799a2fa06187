import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { reapAllExpiredLeases } from '../shared/accounting/reap-all.ts';
import { recordReaperPass } from '../shared/observability/gateway-telemetry.ts';
import { openFullStore } from './full-store.ts';
import { servicesFromEnvironment } from './gateway-runtime.ts';

/**
 * The reaper on its EventBridge schedule: settles requests whose function died between admission and settlement.
 * A failed pass throws, so Lambda counts an error, which the reaper-backlog alarm watches.
 */
export const handler = middy<ScheduledEvent, { reaped: number }>().handler(async () => {
  const services = servicesFromEnvironment(openFullStore);
  const reaped = await reapAllExpiredLeases(services);
  recordReaperPass(services.config, reaped);
  return { reaped };
});
