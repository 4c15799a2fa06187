import type { AlertDelivery, StoredAlert } from '../../alerts/alert-delivery-state.ts';
import type { AlertEvent } from '../../alerts/alert-event.ts';
import type { AlertStore } from '../store-port.ts';
import type { Statements } from './sqlite-statements.ts';

interface AlertRow {
  id: string;
  at: string;
  event: string;
  delivery: string;
}

const toStoredAlert = (row: AlertRow): StoredAlert => ({
  event: JSON.parse(row.event) as AlertEvent,
  delivery: JSON.parse(row.delivery) as AlertDelivery,
});

/** When a pending delivery is next due; null for any other state, so the due index holds only pending alerts. */
const dueAt = (delivery: AlertDelivery): string | null =>
  delivery.state === 'pending' ? delivery.nextAttemptAt : null;

/** The alerts outbox: one row per alert id; `INSERT … ON CONFLICT DO NOTHING` is the once-only write. */
export function sqliteAlerts(statements: Statements): AlertStore {
  return {
    async record(event, delivery) {
      return statements.write(
        () =>
          statements
            .get(
              `INSERT INTO alerts (id, at, type, event, delivery, due_at) VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (id) DO NOTHING`,
            )
            .run(event.id, event.at, event.type, JSON.stringify(event), JSON.stringify(delivery), dueAt(delivery))
            .changes === 1,
      );
    },

    async due(now, limit) {
      const rows = statements
        .get('SELECT id, at, event, delivery FROM alerts WHERE due_at <= ? ORDER BY due_at LIMIT ?')
        .all(now, limit) as AlertRow[];
      return rows.map(toStoredAlert);
    },

    async setDelivery(id, delivery) {
      statements.write(() =>
        statements
          .get('UPDATE alerts SET delivery = ?, due_at = ? WHERE id = ?')
          .run(JSON.stringify(delivery), dueAt(delivery), id),
      );
    },

    async list({ limit, after, type }) {
      const rows = statements
        .get(
          `SELECT id, at, event, delivery FROM alerts
           WHERE (@type IS NULL OR type = @type) AND (@afterAt IS NULL OR (at, id) < (@afterAt, @afterId))
           ORDER BY at DESC, id DESC LIMIT @take`,
        )
        .all({
          type: type ?? null,
          afterAt: after?.at ?? null,
          afterId: after?.id ?? '',
          take: limit + 1,
        }) as AlertRow[];
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        alerts: page.map(toStoredAlert),
        next: rows.length > limit && last ? { at: last.at, id: last.id } : null,
      };
    },
  };
}
