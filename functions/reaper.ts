import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { reapAllExpiredLeases } from '../shared/accounting/reap-all.ts';
import { deliverDueAlerts } from '../shared/alerts/deliver-alerts.ts';
import { eventBridgeSink } from '../shared/alerts/eventbridge-sink.ts';
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
  // The alerts outbox is delivered here on AWS: the request path records alerts and never carries the client.
  await services.alerts.scanExpiringKeys();
  const target = services.config.alerts.eventBridge;
  if (target) {
    const sink = await eventBridgeSink({ ...target, region: services.config.region });
    const signal = AbortSignal.timeout(60_000);
    await deliverDueAlerts(services.store.alerts, sink, {
      now: services.now,
      policy: services.config.alerts.retry,
      signal,
    });
  }
  return { reaped };
});
