import { logger } from '../observability/logger.ts';
import type { AlertStore } from '../store/store-port.ts';
import type { AlertSink } from './alert-sink.ts';
import { deliverDueAlerts, type RetryPolicy } from './deliver-alerts.ts';

export interface AlertDeliveryLoop {
  /** Runs a delivery pass soon: after an alert is recorded, at start, on the reaper's ticks. */
  deliverSoon(): void;
  /** Stops once the attempt under way ends; what is pending stays pending for the next start. */
  close(): Promise<void>;
}

/**
 * Delivery in the process that raises alerts (one machine, to a webhook): one pass at a time, each pass sending
 * what is due, and a timer for the earliest retry. Never on a request's path: passes run on their own.
 */
export function startAlertDeliveryLoop(options: {
  alerts: AlertStore;
  sink: AlertSink;
  now: () => Date;
  policy: RetryPolicy;
}): AlertDeliveryLoop {
  const { alerts, sink, now, policy } = options;
  const shutdown = new AbortController();
  let running: Promise<void> | undefined;
  let again = false;
  let retryTimer: NodeJS.Timeout | undefined;

  async function pass(): Promise<void> {
    try {
      await deliverDueAlerts(alerts, sink, { now, policy, signal: shutdown.signal });
      // The next pass when the earliest retry falls due (no retry waits longer than the largest backoff).
      const horizon = new Date(now().getTime() + policy.maxBackoffMs).toISOString();
      const [next] = await alerts.due(horizon, 1);
      if (next?.delivery.state === 'pending' && !shutdown.signal.aborted) {
        clearTimeout(retryTimer);
        retryTimer = setTimeout(deliverSoon, Math.max(10, Date.parse(next.delivery.nextAttemptAt) - now().getTime()));
        retryTimer.unref();
      }
    } catch (error) {
      logger.error('alert delivery pass failed', { error });
    }
  }

  function deliverSoon(): void {
    if (shutdown.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again && !shutdown.signal.aborted);
    })().finally(() => {
      running = undefined;
    });
  }

  return {
    deliverSoon,
    async close() {
      shutdown.abort();
      clearTimeout(retryTimer);
      await running;
    },
  };
}
