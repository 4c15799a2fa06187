import type { AuditEntry } from '../audit-entries.ts';
import type { AuditStore } from '../store-port.ts';
import type { Statements } from './sqlite-statements.ts';

/**
 * The audit log in its own table: the filtered columns apart (each with an index that reads newest first), the
 * whole entry as JSON. A page is one indexed range read, however long the log.
 */
export function sqliteAudit(statements: Statements): AuditStore {
  return {
    async append(entry) {
      statements
        .get(
          `INSERT INTO audit_log (id, at, actor_member_id, action, target_type, target_id, entry)
           VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
        )
        .run(
          entry.id,
          entry.at,
          entry.actor.memberId,
          entry.action,
          entry.target.type,
          entry.target.id,
          JSON.stringify(entry),
        );
    },

    async list(query) {
      const conditions: string[] = [];
      const values: unknown[] = [];
      if (query.actor !== undefined) {
        conditions.push('actor_member_id = ?');
        values.push(query.actor);
      }
      if (query.action !== undefined) {
        conditions.push('action = ?');
        values.push(query.action);
      }
      if (query.target !== undefined) {
        conditions.push('target_id = ?');
        values.push(query.target);
      }
      if (query.after) {
        conditions.push('(at < ? OR (at = ? AND id < ?))');
        values.push(query.after.at, query.after.at, query.after.id);
      }
      const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
      const rows = statements
        .get(`SELECT entry FROM audit_log ${where} ORDER BY at DESC, id DESC LIMIT ?`)
        .all(...values, query.limit + 1) as { entry: string }[];
      const entries = rows.slice(0, query.limit).map((row) => JSON.parse(row.entry) as AuditEntry);
      return { entries, more: rows.length > query.limit };
    },
  };
}
