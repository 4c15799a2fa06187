import { logger } from '../observability/logger.ts';
import type { AlertStore } from '../store/store-port.ts';
import type { AlertDelivery, StoredAlert } from './alert-delivery-state.ts';
import { type AlertSink, PermanentDeliveryError } from './alert-sink.ts';

/** How long and how often a delivery is tried again. */
export interface RetryPolicy {
  /** Counted from when the alert was raised; after it the alert is `failed`. */
  retryWindowMs: number;
  firstBackoffMs: number;
  maxBackoffMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  retryWindowMs: 15 * 60_000,
  firstBackoffMs: 1_000,
  maxBackoffMs: 60_000,
};

/** Alerts one pass sends at most: a receiver that is down costs each pass a bounded time. */
const alertsPerPass = 50;

export interface DeliveryPass {
  delivered: number;
  retrying: number;
  failed: number;
}

/**
 * One pass of the outbox: every alert due by now is sent once; a failure is retried with exponential backoff until
 * the retry window closes. Never throws for a receiver's failure (each is logged and stored with the alert).
 */
export async function deliverDueAlerts(
  alerts: AlertStore,
  sink: AlertSink,
  options: { now: () => Date; policy: RetryPolicy; signal: AbortSignal },
): Promise<DeliveryPass> {
  const pass: DeliveryPass = { delivered: 0, retrying: 0, failed: 0 };
  for (const alert of await alerts.due(options.now().toISOString(), alertsPerPass)) {
    if (options.signal.aborted) break;
    const next = await attempt(alert, sink, options);
    // Stopped mid-attempt (the host is shutting down): the alert stays pending for the next process.
    if (options.signal.aborted) break;
    await alerts.setDelivery(alert.event.id, next);
    if (next.state === 'delivered') pass.delivered++;
    else if (next.state === 'failed') pass.failed++;
    else pass.retrying++;
  }
  return pass;
}

async function attempt(
  alert: StoredAlert,
  sink: AlertSink,
  options: { now: () => Date; policy: RetryPolicy; signal: AbortSignal },
): Promise<AlertDelivery> {
  const attempts = (alert.delivery.state === 'pending' ? alert.delivery.attempts : 0) + 1;
  const { event } = alert;
  try {
    await sink.send(event, options.signal);
    logger.info('alert delivered', { alertId: event.id, type: event.type, sink: sink.name, attempts });
    return { state: 'delivered', attempts, deliveredAt: options.now().toISOString() };
  } catch (error) {
    const lastError = error instanceof Error ? error.message : String(error);
    const now = options.now();
    const backoff = Math.min(options.policy.maxBackoffMs, options.policy.firstBackoffMs * 2 ** (attempts - 1));
    const windowEnds = Date.parse(event.at) + options.policy.retryWindowMs;
    if (error instanceof PermanentDeliveryError || now.getTime() + backoff > windowEnds) {
      logger.error('alert not delivered: given up', { alertId: event.id, sink: sink.name, attempts, lastError });
      return { state: 'failed', attempts, lastError };
    }
    logger.info('alert delivery failed: will retry', { alertId: event.id, sink: sink.name, attempts, lastError });
    return { state: 'pending', attempts, nextAttemptAt: new Date(now.getTime() + backoff).toISOString(), lastError };
  }
}
