import type { AlertEvent } from './alert-event.ts';

/**
 * An alert in a reader's words, for the CLI's table and the console's Alerts view alike (imported by the web build:
 * nothing Node-specific here). `formatCount` renders numbers as the caller's medium does.
 */
export function describeAlertSubject(subject: AlertEvent['subject']): string {
  const named = (id: string | undefined, name: string | undefined) => (name ? `${name} (${id})` : id);
  const parts = [named(subject.memberId, subject.memberName), named(subject.keyId, subject.keyName)];
  if (subject.connectionId) parts.push(`${subject.provider ?? ''} ${subject.connectionId}`.trim());
  return parts.filter(Boolean).join(' · ') || '—';
}

export function describeAlertDetail(
  event: Pick<AlertEvent, 'day' | 'threshold' | 'used' | 'allowance'> & { type: string },
  formatCount: (value: number) => string = String,
): string {
  const count = (value: number | null) => (value === null ? '—' : formatCount(value));
  switch (event.type) {
    case 'allowance.threshold':
      return `${Math.round((event.threshold ?? 0) * 100)} % of the daily allowance: ${count(event.used)} of ${count(event.allowance)} tokens`;
    case 'holder.requests-exhausted':
      return `all ${count(event.allowance)} holder requests of the day used`;
    case 'key.expiring':
      return `expires on ${event.day}`;
    case 'connection.credential-refused':
      return `the provider answered ${count(event.used)}: check the connection's credential`;
    default:
      return event.type;
  }
}
