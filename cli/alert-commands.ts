import { alertTypes } from '../shared/alerts/alert-event.ts';
import { describeAlertDetail, describeAlertSubject } from '../shared/alerts/describe-alert.ts';
import * as z from '../shared/validation/zod.ts';
import { type Command, defineCommand } from './command-definition.ts';
import { choiceFlag, integerFlag, textFlag } from './flag-definitions.ts';
import { renderTable } from './render-table.ts';

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
            { header: 'SUBJECT', cell: (alert) => describeAlertSubject(alert.event.subject) },
            { header: 'DETAIL', cell: (alert) => describeAlertDetail(alert.event) },
          ])) + (nextCursor ? `More: --cursor ${nextCursor}\n` : ''),
  }),
];
