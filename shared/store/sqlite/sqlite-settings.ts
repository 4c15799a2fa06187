import type { Policy } from '../control-items.ts';
import { VersionConflictError } from '../store-errors.ts';
import type { SettingsStore, TeamSettings } from '../store-port.ts';
import type { Statements } from './sqlite-statements.ts';

const settingName = 'team_settings';
const initial: TeamSettings = { version: 1, defaultPolicy: {} };

/** The team's settings as one JSON value of the settings table, updated with one conditional statement. */
export function sqliteSettings(statements: Statements): SettingsStore {
  const read = (): TeamSettings => {
    const row = statements.get('SELECT value FROM settings WHERE name = ?').get(settingName) as
      | { value: string }
      | undefined;
    return row ? (JSON.parse(row.value) as TeamSettings) : initial;
  };
  return {
    get: async () => read(),
    async update(expectedVersion, defaultPolicy: Policy) {
      const next: TeamSettings = { version: expectedVersion + 1, defaultPolicy };
      // Absent settings are at version 1: the first update inserts them, conditionally like every other.
      const result =
        expectedVersion === 1
          ? statements
              .get(
                `INSERT INTO settings (name, value) VALUES (?, ?)
                 ON CONFLICT (name) DO UPDATE SET value = excluded.value WHERE json_extract(value, '$.version') = 1`,
              )
              .run(settingName, JSON.stringify(next))
          : statements
              .get("UPDATE settings SET value = ? WHERE name = ? AND json_extract(value, '$.version') = ?")
              .run(JSON.stringify(next), settingName, expectedVersion);
      if (result.changes === 0) throw new VersionConflictError('settings', read());
      return next;
    },
  };
}
