import * as z from '../shared/validation/zod.ts';
import { connectionSchema, keySchema, memberSchema } from './admin-views.ts';
import { UsageError } from './cli-errors.ts';
import { type Command, defineCommand } from './command-definition.ts';
import { choiceFlag, integerFlag, optionalSwitch, textFlag } from './flag-definitions.ts';
import { renderConnections, renderKeys, renderMembers } from './render-views.ts';

/**
 * The admin API's lists, a page at a time: `--limit` (1-200, the API's default 50), `--cursor` (the next page, as
 * the page before printed it), `--name` (a case-insensitive part) and `--state`. The API checks them again and
 * answers a bad one with 400; they are read here too so a typo sends nothing.
 */
function pageFlags<const State extends string>(states: readonly State[], nameHelp: string) {
  return {
    limit: integerFlag('N', 'records per page (1-200; default 50)', 1),
    cursor: textFlag('C', 'the next page, as the page before printed it'),
    name: textFlag('TEXT', nameHelp),
    state: choiceFlag(states, 'only records in this state'),
  };
}

/** The query string of a list: the filters that were given, none of those that were not. */
function queryOf(values: Record<string, string | number | undefined>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (name === 'limit' && typeof value === 'number' && value > 200) {
      throw new UsageError(`--limit expects a whole number from 1 to 200, got '${value}'`);
    }
    query[name] = String(value);
  }
  return query;
}

/**
 * A page says where the next one starts; on DynamoDB a filtered page may be short (even empty) and still have one,
 * because a page reads a bounded stretch of the list (docs/admin-api.md, "Lists").
 */
const nextPageLine = (cursor: string | null | undefined) => (cursor ? `more: --cursor ${cursor}\n` : '');

const nextCursor = z.nullish(z.string());

const auditEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.object({ memberId: z.string(), keyId: z.nullable(z.string()), via: z.string() }),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  before: z.nullable(z.record(z.string(), z.unknown())),
  after: z.nullable(z.record(z.string(), z.unknown())),
});

const auditPage = z.object({ entries: z.array(auditEntrySchema), nextCursor });
/** `audit list` answers a page of entries, or with `--csv` the export's text as the gateway wrote it. */
const auditResult = z.union([z.string(), auditPage]);

function renderAudit(result: z.infer<typeof auditResult>): string {
  if (typeof result === 'string') return result;
  const lines = result.entries.map(
    (entry) =>
      `${entry.at}  ${entry.action.padEnd(20)} ${entry.target.type} ${entry.target.id}  by ${entry.actor.memberId}\n`,
  );
  return (lines.length === 0 ? 'no audit entries\n' : lines.join('')) + nextPageLine(result.nextCursor);
}

export const memberListCommand: Command = defineCommand({
  words: ['member', 'list'],
  summary: 'List members, a page at a time',
  operands: [],
  flags: pageFlags(['active', 'disabled', 'suspended'], 'only members whose name contains this'),
  buildRequest: ({ flags }) => ({ method: 'GET', path: '/admin/v1/members', query: queryOf(flags) }),
  result: z.object({ members: z.array(memberSchema), nextCursor }),
  render: ({ members, nextCursor }) => renderMembers(members) + nextPageLine(nextCursor),
});
export const keyListCommand: Command = defineCommand({
  words: ['key', 'list'],
  summary: 'List keys (never their secrets), optionally of one member, a page at a time',
  operands: [],
  flags: {
    member: textFlag('ID', 'only the keys of this member'),
    ...pageFlags(['active', 'revoked', 'expired'], 'only keys whose name contains this'),
  },
  buildRequest: ({ flags: { member, ...flags } }) => ({
    method: 'GET',
    path: '/admin/v1/keys',
    query: queryOf({ memberId: member, ...flags }),
  }),
  result: z.object({ keys: z.array(keySchema), nextCursor }),
  render: ({ keys, nextCursor }) => renderKeys(keys) + nextPageLine(nextCursor),
});
export const connectionListCommand: Command = defineCommand({
  words: ['connection', 'list'],
  summary: 'List connections (never their credentials), a page at a time',
  operands: [],
  flags: pageFlags(['enabled', 'disabled'], 'only connections whose provider or id contains this'),
  buildRequest: ({ flags }) => ({ method: 'GET', path: '/admin/v1/connections', query: queryOf(flags) }),
  result: z.object({ connections: z.array(connectionSchema), nextCursor }),
  render: ({ connections, nextCursor }) => renderConnections(connections) + nextPageLine(nextCursor),
});
export const auditListCommand: Command = defineCommand({
  words: ['audit', 'list'],
  summary: 'List the audit log, newest first; --csv prints the export (at most 1,000 rows) instead',
  operands: [],
  flags: {
    actor: textFlag('ID', 'only changes made by this member'),
    action: textFlag('A', 'only this action, such as member.update'),
    target: textFlag('ID', 'only changes to this member, key or connection'),
    limit: integerFlag('N', 'entries per page (1-200; with --csv 1-1000)', 1),
    cursor: textFlag('C', 'the next page, as the page before printed it'),
    csv: optionalSwitch('print CSV (formula-safe, as the usage export) as the gateway writes it'),
  },
  buildRequest: ({ flags: { csv, limit, ...filters } }) => {
    if (csv && filters.cursor !== undefined)
      throw new UsageError('--csv takes no --cursor: it exports from the newest');
    if (limit !== undefined && limit > (csv ? 1000 : 200)) {
      throw new UsageError(`--limit expects a whole number from 1 to ${csv ? 1000 : 200}, got '${limit}'`);
    }
    return {
      method: 'GET',
      path: csv ? '/admin/v1/audit.csv' : '/admin/v1/audit',
      query: queryOf({ ...filters, limit }),
      ...(csv ? { accept: 'text/csv' as const } : {}),
    };
  },
  result: auditResult,
  render: renderAudit,
});
