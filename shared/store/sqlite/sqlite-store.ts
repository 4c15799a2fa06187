import type Database from 'better-sqlite3';
import { nothingToMigrate } from '../earlier-records.ts';
import { sessionStoreOver } from '../sign-in-items.ts';
import type { GatewayStore } from '../store-port.ts';
import { sqliteAdmission } from './sqlite-admission.ts';
import { sqliteAlerts } from './sqlite-alerts.ts';
import { sqliteAudit } from './sqlite-audit.ts';
import { sqliteConnections, sqliteKeys, sqliteMembers } from './sqlite-control.ts';
import { guardVerbs, openDatabase, type SqliteOptions } from './sqlite-database.ts';
import { sqliteRecords } from './sqlite-records.ts';
import { sqliteSettings } from './sqlite-settings.ts';
import { sqliteSignInItems } from './sqlite-sign-in.ts';
import { Statements } from './sqlite-statements.ts';
import { sqliteLegacyUsage, sqliteRollups } from './sqlite-usage.ts';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.ts';

/** The SQLite engine, with its database handle for whoever inspects it (tests, the upgrade import). */
export interface SqliteStore extends GatewayStore {
  readonly engine: 'sqlite';
  readonly database: Database.Database;
}

/**
 * The store port on one SQLite database file (better-sqlite3: synchronous, so one admission is one transaction
 * of a few microseconds on the gateway's own thread, with no round trip). One process per database file: the
 * local host holds the data folder alone.
 */
export function openSqliteStore(options: SqliteOptions): SqliteStore {
  const database = openDatabase(options);
  const statements = new Statements(database);
  let checkpointer: WalCheckpointer | undefined;
  if (options.checkpointIntervalMs !== undefined && options.path !== ':memory:') {
    database.pragma('wal_autocheckpoint = 0');
    checkpointer = startWalCheckpointer({
      path: options.path,
      intervalMs: options.checkpointIntervalMs,
      synchronous: options.synchronous,
      onFailure(error) {
        // Back to checkpoints on this connection, SQLite's default: the log must not grow without end.
        if (database.open) database.pragma('wal_autocheckpoint = 1000');
        options.onCheckpointFailure?.(error);
      },
    });
  }
  const committed = () => statements.committed();
  const isOpen = () => database.open;
  return {
    engine: 'sqlite',
    database,
    members: guardVerbs(sqliteMembers(statements), committed, isOpen),
    keys: guardVerbs(sqliteKeys(statements), committed, isOpen),
    connections: guardVerbs(sqliteConnections(statements), committed, isOpen),
    admission: guardVerbs(sqliteAdmission(statements), committed, isOpen),
    records: guardVerbs(sqliteRecords(statements), committed, isOpen),
    rollups: guardVerbs(sqliteRollups(statements), committed, isOpen),
    legacyUsage: guardVerbs(sqliteLegacyUsage(statements), committed, isOpen),
    // An earlier data folder is imported whole at the first start (shared/store/upgrade/): nothing is left to carry.
    earlierRecords: nothingToMigrate,
    alerts: guardVerbs(sqliteAlerts(statements), committed),
    audit: guardVerbs(sqliteAudit(statements), committed),
    sessions: guardVerbs(sessionStoreOver(sqliteSignInItems(statements)), committed),
    settings: guardVerbs(sqliteSettings(statements), committed),
    async close() {
      if (database.open) statements.flush();
      await checkpointer?.stop();
      if (database.open) database.close();
    },
  };
}
