/**
 * What the gateway tells people before a budget runs out or a connection stops working. One event per subject,
 * threshold and day: its id is that triple, and the store records each id once (a conditional write), so however
 * many requests or instances notice the same thing at once, exactly one event is delivered.
 */
export const alertTypes = [
  /** A member's charged tokens of a UTC day reached a configured share of the daily allowance. */
  'allowance.threshold',
  /** A holder wallet's requests of a UTC day reached its tier's limit: further requests get 429 until 00:00 UTC. */
  'holder.requests-exhausted',
  /** A live key expires within the warning window (7 days). */
  'key.expiring',
  /** A connection's upstream refused the stored credential (401 or 403): revoked or mistyped. */
  'connection.credential-refused',
] as const;
export type AlertType = (typeof alertTypes)[number];

/** Ids and names only: never a key secret, a credential, a prompt or an answer. */
export interface AlertSubject {
  memberId?: string | undefined;
  memberName?: string | undefined;
  keyId?: string | undefined;
  keyName?: string | undefined;
  connectionId?: string | undefined;
  provider?: string | undefined;
}

export interface AlertEvent {
  /** `<type>:<subject id>:<threshold>:<day>`: the deduplication key. */
  id: string;
  type: AlertType;
  subject: AlertSubject;
  /** The share of the allowance crossed (0.8, 1), or the warning window in days for an expiring key; else null. */
  threshold: number | null;
  /** Tokens charged (allowance), requests made (holder), or the upstream's status (connection); else null. */
  used: number | null;
  /** The daily allowance in tokens, or the holder's requests per day; else null. */
  allowance: number | null;
  /** The UTC day (`YYYY-MM-DD`) the event belongs to: the day counted, or the day a key expires. */
  day: string;
  /** When the gateway raised it (ISO). */
  at: string;
}

export function alertId(type: AlertType, subjectId: string, threshold: number | null, day: string): string {
  return `${type}:${subjectId}:${threshold ?? '-'}:${day}`;
}
