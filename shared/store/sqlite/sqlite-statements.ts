import type Database from 'better-sqlite3';

/**
 * Prepared statements, prepared once per SQL text (better-sqlite3 compiles a statement at `prepare`, and the hot
 * path runs the same few over and over), and the group commit of the engine's writes.
 *
 * Group commit: the writes of one turn of the event loop share one transaction. The first `write` of a turn opens
 * it (`BEGIN IMMEDIATE`, which takes the write lock first, so it never deadlocks) and the commit runs once the
 * turn's I/O callbacks are done (`setImmediate`); each `write` runs in a savepoint of its own inside it, so one
 * that throws undoes its own changes and nothing else. Every verb of the store answers only after the commit of
 * the batch it wrote in (`committed`, awaited by `guardVerbs`): an admission is on disk, as far as `synchronous`
 * says, before its request is dispatched, exactly as with a transaction of its own; a commit that fails fails
 * every verb of its batch, none of which has answered yet. What changes is the cost under load: a commit writes
 * each page the batch touched once, and the requests of one turn touch many of the same pages (the member's
 * counters, the lease table, the newest records), instead of every request writing its own copies of them.
 * Inside the batch, every admission sees the ones before it: one connection, one writer, so the checks stay exact.
 */
export class Statements {
  readonly #cache = new Map<string, Database.Statement>();
  /** One transaction function for every write: better-sqlite3 builds its wrapper when it is created. */
  readonly #savepoint: (work: () => unknown) => unknown;
  /** The open batch: settled when its commit is done (or failed). */
  #batch: { committed: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;

  constructor(readonly database: Database.Database) {
    // Called inside the batch's transaction, better-sqlite3 runs it as a savepoint.
    this.#savepoint = database.transaction((work: () => unknown) => work());
  }

  get(sql: string): Database.Statement {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.#cache.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `work` as one atomic step of the current batch (all of it or none of it), opening the batch if none is
   * open. Durable once `committed()` resolves.
   */
  write<T>(work: () => T): T {
    if (this.#batch) return this.#savepoint(work) as T;
    // The first write of a batch needs no savepoint: if it throws, the batch holds nothing else, and rolling the
    // whole transaction back undoes exactly it. One at a time, every write is the first of its batch, and the
    // savepoint and its release were two more statements for each.
    this.#open();
    try {
      return work();
    } catch (error) {
      this.#abandon();
      throw error;
    }
  }

  /** Resolves once everything written so far is committed; rejects if that commit failed. */
  committed(): Promise<void> {
    return this.#batch?.committed ?? Promise.resolve();
  }

  /** Commits the open batch now (the store is closing). */
  flush(): void {
    if (this.#batch) this.#commit();
  }

  #open(): void {
    // Another connection's write lock (the sqlite3 shell writing, say) is waited for up to the busy time-out.
    this.get('BEGIN IMMEDIATE').run();
    let resolve: () => void = () => {};
    let reject: (error: unknown) => void = () => {};
    const committed = new Promise<void>((resolveCommit, rejectCommit) => {
      resolve = resolveCommit;
      reject = rejectCommit;
    });
    // A failed commit is seen by every verb that awaits it; nobody else needs to hear of it.
    committed.catch(() => {});
    this.#batch = { committed, resolve, reject };
    setImmediate(() => this.#commit());
  }

  /** Undoes the open batch, which holds only the write that failed: nothing is left for its commit to write. */
  #abandon(): void {
    const batch = this.#batch;
    this.#batch = undefined;
    if (this.database.open && this.database.inTransaction) this.get('ROLLBACK').run();
    batch?.resolve();
  }

  #commit(): void {
    const batch = this.#batch;
    if (!batch) return;
    this.#batch = undefined;
    if (!this.database.open) {
      batch.reject(new Error('the database was closed before the batch was committed'));
      return;
    }
    try {
      this.get('COMMIT').run();
      batch.resolve();
    } catch (error) {
      if (this.database.inTransaction) this.get('ROLLBACK').run();
      batch.reject(error);
    }
  }
}

/** SQLite's answer to a second row with the same primary or unique key. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
