import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';
import { startWalCheckpointer } from '../../shared/store/sqlite/wal-checkpointer.ts';

/**
 * The SQLite engine checkpoints its write-ahead log from a thread of its own (wal-checkpointer.ts), so no commit on
 * the gateway's thread ever copies the log into the database file and syncs it.
 */
describe('the write-ahead log checkpoint thread', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gateway-checkpoint-'));
  });
  afterAll(async () => rm(folder, { recursive: true, force: true }));

  it('moves committed pages into the database file while the gateway thread only appends to the log', async () => {
    const path = join(folder, 'checkpointed.sqlite');
    const failures: Error[] = [];
    const store = openSqliteStore({
      path,
      synchronous: 'normal',
      checkpointIntervalMs: 20,
      onCheckpointFailure: (error) => failures.push(error),
    });
    try {
      // The gateway's connection never checkpoints on its own.
      expect(store.database.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const sizeBefore = (await stat(path)).size;
      const insert = store.database.prepare('INSERT INTO settings (name, value) VALUES (?, ?)');
      for (let index = 0; index < 2000; index++) insert.run(`setting-${index}`, 'x'.repeat(200));
      // The database file grows only when a checkpoint copies the log's pages into it.
      await vi.waitFor(async () => expect((await stat(path)).size).toBeGreaterThan(sizeBefore + 200 * 1000), {
        timeout: 10_000,
        interval: 20,
      });
      expect(failures).toEqual([]);
    } finally {
      await store.close();
    }
    // Closed: everything is in the database file, which reopens with every row.
    const reopened = openSqliteStore({ path, synchronous: 'normal' });
    try {
      expect(reopened.database.prepare('SELECT count(*) AS rows FROM settings').get()).toEqual({ rows: 2000 });
    } finally {
      await reopened.close();
    }
  });

  it('reports a thread that cannot do its work, so the connection can checkpoint again itself', async () => {
    const failure = await new Promise<Error>((resolve) => {
      const checkpointer = startWalCheckpointer({
        path: join(folder, 'missing.sqlite'),
        intervalMs: 20,
        synchronous: 'normal',
        onFailure: (error) => {
          resolve(error);
          void checkpointer.stop();
        },
      });
    });
    expect(failure.message).toMatch(/unable to open database file/);
  });
});
