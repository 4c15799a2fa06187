import Database from 'better-sqlite3';
import { StoreClosedError, StoreUnavailableError } from '../store-errors.ts';
import { migrate } from './sqlite-schema.ts';

export interface SqliteOptions {
  /** The database file; `:memory:` for a database that lives as long as the process. */
  path: string;
  /** `normal` survives any crash of the process; `full` also a power loss (see docs/store.md). */
  synchronous: 'normal' | 'full';
  /**
   * How long a write waits for another connection's write lock (the `sqlite3` shell writing, say) before it
   * gives up as unavailable. The gateway is the only writer in normal operation, so this is rarely waited.
   */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the write-ahead log from a thread of its own this often (wal-checkpointer.ts) instead of on the
   * committing connection; absent, SQLite's automatic checkpoints run as they do by default.
   */
  checkpointIntervalMs?: number;
  /** The checkpoint thread failed: automatic checkpoints are back on; this is told why. */
  onCheckpointFailure?: (error: Error) => void;
}

const defaultBusyTimeoutMs = 2_000;

/**
 * Opens the database: WAL journal (readers never block the writer; a crash never leaves a half-written
 * transaction), the chosen `synchronous`, foreign keys on, and the schema migrated to this version.
 */
export function openDatabase(options: SqliteOptions): Database.Database {
  const database = new Database(options.path);
  try {
    database.pragma('journal_mode = WAL');
    database.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    database.pragma(`busy_timeout = ${options.busyTimeoutMs ?? defaultBusyTimeoutMs}`);
    database.pragma('foreign_keys = ON');
    migrate(database);
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}

/** SQLite's result codes for a database locked by another connection past the busy time-out. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Every verb of a store object answering only once what it wrote (or read) is committed (`committed`: the group
 * commit of sqlite-statements.ts), with SQLite's "busy" turned into the port's `StoreUnavailableError`; the work
 * ran in one transaction, so nothing of it happened. Once the database is closed (`isOpen` false) every verb
 * rejects with the port's `StoreClosedError`, not better-sqlite3's "database connection is not open".
 */
export function guardVerbs<Verbs extends object>(
  verbs: Verbs,
  committed: () => Promise<void>,
  isOpen: () => boolean = () => true,
): Verbs {
  const guarded: Record<string, unknown> = {};
  for (const [name, verb] of Object.entries(verbs)) {
    if (typeof verb !== 'function') continue;
    guarded[name] = async (...args: unknown[]) => {
      if (!isOpen()) throw new StoreClosedError();
      try {
        const result = await (verb as (...args: unknown[]) => unknown)(...args);
        await committed();
        return result;
      } catch (error) {
        // Closed while the verb waited for its commit: the same answer as one called after the close.
        if (!isOpen()) throw new StoreClosedError();
        if (isBusy(error))
          throw new StoreUnavailableError('The SQLite database is locked by another writer.', { cause: error });
        throw error;
      }
    };
  }
  return guarded as Verbs;
}
