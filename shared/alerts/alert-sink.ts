import type { AlertEvent } from './alert-event.ts';

/** Where alerts go: a webhook on one machine, EventBridge on AWS. */
export interface AlertSink {
  /** For logs: `webhook`, `eventbridge`. */
  readonly name: string;
  /** Sends one event; throws when it was not accepted (a `PermanentDeliveryError` is not retried). */
  send(event: AlertEvent, signal: AbortSignal): Promise<void>;
}

/** The receiver refused the event for good (a 4xx other than 408 or 429): retrying would be refused the same way. */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}
