import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type DeliveryPass, deliverDueAlerts } from '../shared/alerts/deliver-alerts.ts';
import { eventBridgeSink } from '../shared/alerts/eventbridge-sink.ts';
import { openFullStore } from './full-store.ts';
import { servicesFromEnvironment } from './gateway-runtime.ts';

/**
 * The alerts outbox on its EventBridge schedule: announces keys about to expire, then puts every alert that is due
 * on the stage's event bus. The request path only records alerts; this is the one function that carries the
 * EventBridge client. A pass that fails throws, so Lambda counts an error.
 */
export const handler = middy<ScheduledEvent, DeliveryPass & { announcedKeys: number }>().handler(async () => {
  const services = servicesFromEnvironment(openFullStore);
  const announcedKeys = await services.alerts.scanExpiringKeys();
  const target = services.config.alerts.eventBridge;
  if (!target) return { delivered: 0, retrying: 0, failed: 0, announcedKeys };
  const sink = await eventBridgeSink({ ...target, region: services.config.region });
  // Inside the function's minute-long time-out, with room to record the last attempt.
  const signal = AbortSignal.timeout(45_000);
  const pass = await deliverDueAlerts(services.store.alerts, sink, {
    now: services.now,
    policy: services.config.alerts.retry,
    signal,
  });
  return { ...pass, announcedKeys };
});
