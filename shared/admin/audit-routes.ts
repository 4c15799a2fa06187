import { badRequest } from '../http/gateway-error.ts';
import type { GatewayRequest } from '../http/gateway-request.ts';
import type { AuditEntry, AuditQuery } from '../store/audit-entries.ts';
import { csvContentType, csvField } from '../usage/usage-csv.ts';
import type { AdminRoute } from './admin-route.ts';
import { decodeCursor, encodeCursor, pageLimit } from './page-cursor.ts';

/** Rows of one CSV export at most; the API pages beyond that. */
export const maxAuditCsvRows = 1_000;

const isPosition = (value: unknown): value is { at: string; id: string } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { at?: unknown }).at === 'string' &&
  typeof (value as { id?: unknown }).id === 'string';

/** A filter value: a short printable string; anything else is a 400 rather than a query that cannot match. */
function filterValue(request: GatewayRequest, name: string): string | undefined {
  const value = request.query.get(name);
  if (value === null || value === '') return undefined;
  if (!/^[A-Za-z0-9._:#-]{1,200}$/.test(value)) throw badRequest('invalid_query', `${name}: not an id or action.`);
  return value;
}

function auditQuery(request: GatewayRequest, limit: number): AuditQuery {
  const cursor = request.query.get('cursor');
  return {
    limit,
    after: cursor ? decodeCursor(cursor, isPosition) : undefined,
    actor: filterValue(request, 'actor'),
    action: filterValue(request, 'action'),
    target: filterValue(request, 'target'),
  };
}

const csvHeader = [
  'at',
  'actor_member_id',
  'actor_key_id',
  'via',
  'action',
  'target_type',
  'target_id',
  'before',
  'after',
];

function csvRow(entry: AuditEntry): string {
  return [
    entry.at,
    entry.actor.memberId,
    entry.actor.keyId,
    entry.actor.via,
    entry.action,
    entry.target.type,
    entry.target.id,
    entry.before === null ? null : JSON.stringify(entry.before),
    entry.after === null ? null : JSON.stringify(entry.after),
  ]
    .map(csvField)
    .join(',');
}

/** The audit log, newest first, for administrators: as JSON pages, and as CSV (formula-safe, as usage CSV is). */
export const auditRoutes: AdminRoute[] = [
  {
    method: 'GET',
    pattern: '/audit',
    audience: 'admin',
    async action({ services, request }) {
      const page = await services.store.audit.list(auditQuery(request, pageLimit(request.query.get('limit'))));
      const last = page.entries.at(-1);
      return {
        status: 200,
        body: {
          entries: page.entries,
          nextCursor: page.more && last ? encodeCursor({ at: last.at, id: last.id }) : null,
        },
      };
    },
  },
  {
    method: 'GET',
    pattern: '/audit.csv',
    audience: 'admin',
    async action({ services, request }) {
      const page = await services.store.audit.list(
        auditQuery(request, pageLimit(request.query.get('limit'), maxAuditCsvRows, maxAuditCsvRows)),
      );
      const lines = [csvHeader.join(','), ...page.entries.map(csvRow)];
      return { status: 200, body: null, raw: { contentType: csvContentType, body: `${lines.join('\r\n')}\r\n` } };
    },
  },
];
