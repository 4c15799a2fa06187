import type { SignInItems } from '../sign-in-items.ts';
import { isUniqueViolation, type Statements } from './sqlite-statements.ts';

interface ItemRow {
  value: string;
  expires_at: number | null;
}

const toItem = (row: ItemRow | undefined) => (row ? { value: row.value, expiresAt: row.expires_at } : undefined);

/** Sign-in's items in one table keyed by kind and id; `take` is one DELETE … RETURNING, so a state is used once. */
export function sqliteSignInItems(statements: Statements): SignInItems {
  return {
    async putOnce(kind, id, value, expiresAt) {
      try {
        statements.write(() =>
          statements
            .get('INSERT INTO sign_in_items (kind, id, value, expires_at) VALUES (?, ?, ?, ?)')
            .run(kind, id, value, expiresAt),
        );
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async get(kind, id) {
      return toItem(
        statements.get('SELECT value, expires_at FROM sign_in_items WHERE kind = ? AND id = ?').get(kind, id) as
          | ItemRow
          | undefined,
      );
    },
    async take(kind, id) {
      return toItem(
        statements.write(
          () =>
            statements
              .get('DELETE FROM sign_in_items WHERE kind = ? AND id = ? RETURNING value, expires_at')
              .get(kind, id) as ItemRow | undefined,
        ),
      );
    },
    async remove(kind, id) {
      statements.write(() => statements.get('DELETE FROM sign_in_items WHERE kind = ? AND id = ?').run(kind, id));
    },
  };
}
