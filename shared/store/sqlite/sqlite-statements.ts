import type Database from 'better-sqlite3';

/**
 * Prepared statements, prepared once per SQL text: better-sqlite3 compiles a statement at `prepare`, and the hot
 * path (admission, settlement) runs the same few over and over.
 */
export class Statements {
  readonly #cache = new Map<string, Database.Statement>();
  /** One transaction function for every `immediate` call: better-sqlite3 builds its wrapper when it is created. */
  readonly #immediate: (work: () => unknown) => unknown;

  constructor(readonly database: Database.Database) {
    this.#immediate = database.transaction((work: () => unknown) => work()).immediate;
  }

  get(sql: string): Database.Statement {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.#cache.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` in one `BEGIN IMMEDIATE` transaction: it takes the write lock first, so it never deadlocks. */
  immediate<T>(work: () => T): T {
    return this.#immediate(work) as T;
  }
}

/** SQLite's answer to a second row with the same primary or unique key. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
