import type { AlertEvent } from './alert-event.ts';

/**
 * Where an alert's delivery stands. Alerts are an outbox: the request path only records one (a conditional write),
 * and a deliverer sends what is pending — at once on one machine, on the reaper's schedule on AWS — so no answer
 * ever waits for a receiver, and an alert raised while the receiver is down is sent when it is back.
 */
export type AlertDelivery =
  | { state: 'pending'; attempts: number; nextAttemptAt: string; lastError: string | null }
  | { state: 'delivered'; attempts: number; deliveredAt: string }
  /** Given up after the retry window; the alert stays listed, and the log says why. */
  | { state: 'failed'; attempts: number; lastError: string }
  /** No receiver is configured: recorded and listed only. */
  | { state: 'unsent' };

export interface StoredAlert {
  event: AlertEvent;
  delivery: AlertDelivery;
}

/** The delivery state of an alert just recorded: due at once when something delivers, else only listed. */
export function firstDelivery(deliverable: boolean, now: Date): AlertDelivery {
  return deliverable
    ? { state: 'pending', attempts: 0, nextAttemptAt: now.toISOString(), lastError: null }
    : { state: 'unsent' };
}
