import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guardVerbs } from '../../shared/store/sqlite/sqlite-database.ts';
import { Statements } from '../../shared/store/sqlite/sqlite-statements.ts';

/**
 * The SQLite engine's group commit (sqlite-statements.ts): the writes of one turn of the event loop share one
 * transaction, each write is atomic on its own, and no verb answers before the commit of what it wrote.
 */
let folder: string;
let database: Database.Database;
let statements: Statements;
let other: Database.Database;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'group-commit-'));
  const path = join(folder, 'test.sqlite');
  database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('wal_autocheckpoint = 0');
  database.exec(`
    CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE owners (id TEXT PRIMARY KEY);
    CREATE TABLE owned (id TEXT PRIMARY KEY, owner TEXT NOT NULL REFERENCES owners (id) DEFERRABLE INITIALLY DEFERRED);
    INSERT INTO owners (id) VALUES ('known');
  `);
  database.pragma('foreign_keys = ON');
  database.pragma('wal_checkpoint(TRUNCATE)');
  statements = new Statements(database);
  // Another connection to the same file, as the sqlite3 shell or a crash-and-restart would read it.
  other = new Database(path, { readonly: true });
});

afterEach(async () => {
  statements.flush();
  other.close();
  database.close();
  await rm(folder, { recursive: true, force: true });
});

/** Verbs as the engine exposes them: each one a write, answering once committed. */
function verbs() {
  return guardVerbs(
    {
      async add(name: string, amount: number) {
        statements.write(() =>
          statements
            .get(
              'INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT DO UPDATE SET value = value + excluded.value',
            )
            .run(name, amount),
        );
      },
      async addThenFail(name: string) {
        statements.write(() => {
          statements.get('INSERT INTO counters (name, value) VALUES (?, 1)').run(name);
          throw new Error('refused half-way');
        });
      },
      async own(id: string, owner: string) {
        statements.write(() => statements.get('INSERT INTO owned (id, owner) VALUES (?, ?)').run(id, owner));
      },
    },
    () => statements.committed(),
  );
}

const committedValue = (name: string) =>
  (other.prepare('SELECT value FROM counters WHERE name = ?').get(name) as { value: number } | undefined)?.value;
const walFrames = () => (database.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]?.log ?? 0;

describe('the SQLite group commit', () => {
  it('answers a write only once it is committed: another connection sees it then, and not before the turn ends', async () => {
    const store = verbs();
    const written = store.add('a', 1);
    // Written in this connection's open transaction, not yet committed.
    expect(committedValue('a')).toBeUndefined();
    await written;
    expect(committedValue('a')).toBe(1);
  });

  it('commits the writes of one turn together: a page they all touch is written to the log once', async () => {
    const store = verbs();
    await Promise.all(Array.from({ length: 20 }, () => store.add('shared', 1)));
    const together = walFrames();
    database.pragma('wal_checkpoint(TRUNCATE)');
    for (let index = 0; index < 20; index++) await store.add('shared', 1);
    const apart = walFrames();
    expect(committedValue('shared')).toBe(40);
    expect(together).toBe(1);
    expect(apart).toBe(20);
  });

  it('undoes a write that throws, and only it', async () => {
    const store = verbs();
    const results = await Promise.allSettled([store.add('kept', 1), store.addThenFail('undone'), store.add('kept', 2)]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(committedValue('kept')).toBe(3);
    expect(committedValue('undone')).toBeUndefined();
  });

  it('undoes the first write of a batch when it throws (it runs without a savepoint), and commits the writes after it', async () => {
    const store = verbs();
    const results = await Promise.allSettled([
      store.addThenFail('undone'),
      store.add('after', 1),
      store.add('after', 2),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(committedValue('undone')).toBeUndefined();
    expect(committedValue('after')).toBe(3);
    expect(database.inTransaction).toBe(false);
    // Alone in its turn as well: nothing of it is left, and the next turn's write commits.
    await expect(store.addThenFail('alone')).rejects.toThrow('refused half-way');
    await store.add('next', 1);
    expect(committedValue('alone')).toBeUndefined();
    expect(committedValue('next')).toBe(1);
  });

  it('fails every verb of a batch whose commit fails, keeps nothing of it, and commits the next batch', async () => {
    const store = verbs();
    // The unknown owner is only found at the commit (a deferred foreign key), after both writes succeeded.
    const results = await Promise.allSettled([store.add('lost', 1), store.own('orphan', 'nobody')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(committedValue('lost')).toBeUndefined();
    expect(database.prepare('SELECT count(*) AS count FROM owned').get()).toEqual({ count: 0 });
    await store.own('child', 'known');
    expect(other.prepare('SELECT owner FROM owned WHERE id = ?').get('child')).toEqual({ owner: 'known' });
  });

  it('commits what is open when the store flushes it on closing', () => {
    statements.write(() => statements.get('INSERT INTO counters (name, value) VALUES (?, 5)').run('closing'));
    statements.flush();
    expect(committedValue('closing')).toBe(5);
  });
});
