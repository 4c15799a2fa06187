import { alertTypes } from '../shared/alerts/alert-event.ts';
import * as z from '../shared/validation/zod.ts';
import { type Command, defineCommand } from './command-definition.ts';
import { choiceFlag, integerFlag, textFlag } from './flag-definitions.ts';
import { orDash, renderTable } from './render-table.ts';

/** Tolerant: only what the table reads. */
const storedAlertSchema = z.object({
  event: z.object({
    id: z.string(),
    type: z.string(),
    at: z.string(),
    day: z.string(),
    threshold: z.nullable(z.number()),
    used: z.nullable(z.number()),
    allowance: z.nullable(z.number()),
    subject: z.record(z.string(), z.optional(z.string())),
  }),
  delivery: z.object({ state: z.string() }),
});
type StoredAlertView = z.infer<typeof storedAlertSchema>;

function subjectOf({ event }: StoredAlertView): string {
  const { subject } = event;
  const named = (id: string | undefined, name: string | undefined) => (name ? `${name} (${id})` : id);
  return (
    [named(subject['memberId'], subject['memberName']), named(subject['keyId'], subject['keyName'])]
      .concat(subject['connectionId'] ? [`${subject['provider'] ?? ''} ${subject['connectionId']}`.trim()] : [])
      .filter(Boolean)
      .join(' / ') || '-'
  );
}

function detailOf({ event }: StoredAlertView): string {
  switch (event.type) {
    case 'allowance.threshold':
      return `${Math.round((event.threshold ?? 0) * 100)}%: ${orDash(event.used)} of ${orDash(event.allowance)} tokens`;
    case 'holder.requests-exhausted':
      return `${orDash(event.allowance)} requests used`;
    case 'key.expiring':
      return `expires ${event.day}`;
    case 'connection.credential-refused':
      return `upstream answered ${orDash(event.used)}`;
    default:
      return '-';
  }
}

export const alertCommands: readonly Command[] = [
  defineCommand({
    words: ['alerts', 'list'],
    summary:
      'List recent alerts (allowance thresholds, holder limits, expiring keys, refused credentials), newest first',
    operands: [],
    flags: {
      type: choiceFlag(alertTypes, 'only alerts of this type'),
      limit: integerFlag('N', 'at most this many (1-200, default 50)', 1),
      cursor: textFlag('CURSOR', 'the page after the one that printed this cursor'),
    },
    buildRequest: ({ flags }) => ({
      method: 'GET',
      path: '/admin/v1/alerts',
      query: Object.fromEntries(
        Object.entries({ type: flags.type, limit: flags.limit?.toString(), cursor: flags.cursor }).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      ),
    }),
    result: z.object({ alerts: z.array(storedAlertSchema), nextCursor: z.nullable(z.string()) }),
    render: ({ alerts, nextCursor }) =>
      (alerts.length === 0
        ? 'No alerts.\n'
        : renderTable(alerts, [
            { header: 'RAISED', cell: (alert) => alert.event.at },
            { header: 'TYPE', cell: (alert) => alert.event.type },
            { header: 'DAY', cell: (alert) => alert.event.day },
            { header: 'DELIVERY', cell: (alert) => alert.delivery.state },
            { header: 'SUBJECT', cell: subjectOf },
            { header: 'DETAIL', cell: detailOf },
          ])) + (nextCursor ? `More: --cursor ${nextCursor}\n` : ''),
  }),
];
