import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../shared/store/sqlite/sqlite-schema.ts';
import { openSqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';

/**
 * Schema 4 keeps leases in a table keyed by request alone, with one index for members and keys. A database of
 * schema 3 with requests in flight at the upgrade keeps them: they still count against the concurrency limits,
 * and each settles once, as it would have before.
 */
describe('a SQLite database of schema 3 with requests in flight', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gateway-lease-upgrade-'));
  });
  afterAll(async () => rm(folder, { recursive: true, force: true }));

  const day = '2026-03-01';
  const at = Date.parse(`${day}T10:00:00.000Z`);

  it('keeps their leases through the migration: counted, expiring and released as before', async () => {
    const path = join(folder, 'gateway.sqlite');
    const database = new Database(path);
    migrate(database, 3);
    database
      .prepare(
        `INSERT INTO members (id, name, role, status, policy, created_at) VALUES (?, 'm', 'member', 'active', '{}', ?)`,
      )
      .run('mem_upgrade', `${day}T09:00:00.000Z`);
    database
      .prepare(
        `INSERT INTO keys (id, member_id, name, state, generation, policy, created_at, key_prefix)
         VALUES (?, 'mem_upgrade', 'k', 'active', 1, '{}', ?, 'sk-gw-up')`,
      )
      .run('key_upgrade', `${day}T09:00:00.000Z`);
    const lease = database.prepare(
      'INSERT INTO leases (request_id, member_id, key_id, expires_at, reserved, day) VALUES (?, ?, ?, ?, ?, ?)',
    );
    lease.run('req_alive', 'mem_upgrade', 'key_upgrade', at + 60_000, 40, day);
    lease.run('req_dead', 'mem_upgrade', 'key_upgrade', at - 1, 30, day);
    database.prepare('INSERT INTO token_days (member_id, day, tokens) VALUES (?, ?, ?)').run('mem_upgrade', day, 70);
    database.close();

    const store = openSqliteStore({ path, synchronous: 'normal', busyTimeoutMs: 100 });
    try {
      expect(store.database.pragma('user_version', { simple: true })).toBe(schemaVersion);
      const account = await store.admission.account('mem_upgrade');
      expect(Object.keys(account?.leases ?? {}).sort()).toEqual(['req_alive', 'req_dead']);
      expect(account?.keyLeases['key_upgrade']).toEqual({ req_alive: at + 60_000, req_dead: at - 1 });
      expect((await store.admission.expiredLeases(at)).map((expired) => expired.requestId)).toEqual(['req_dead']);

      const request = {
        memberId: 'mem_upgrade',
        keyId: 'key_upgrade',
        generation: 1,
        requestId: 'req_after_upgrade',
        day,
        minute: `${day}T10:00`,
        reserve: 10,
        now: at,
        leaseExpiresAt: at + 60_000,
      };
      // Both leases still count, for the member and for the key.
      expect(await store.admission.admit({ ...request, limits: { memberConcurrency: 2 } })).toMatchObject({
        admitted: false,
        refusal: { reason: 'concurrency', scope: 'member' },
      });
      expect(await store.admission.admit({ ...request, limits: { keyConcurrency: 2 } })).toMatchObject({
        admitted: false,
        refusal: { reason: 'concurrency', scope: 'key' },
      });

      const record = {
        id: 'req_alive',
        memberId: 'mem_upgrade',
        keyId: 'key_upgrade',
        provider: 'openai',
        model: 'openai/m',
        connectionId: 'con_upgrade',
        upstream: 'lb',
        wire: 'openai-chat',
        stream: false,
        startedAt: `${day}T10:00:00.000Z`,
        day,
        reserved: 40,
        state: 'running' as const,
      };
      const closed = {
        record,
        outcome: {
          state: 'completed' as const,
          status: 200,
          endedAt: `${day}T10:00:01.000Z`,
          durationMs: 1000,
          inputTokens: 20,
          cachedInputTokens: null,
          outputTokens: 5,
          charge: 25,
          source: 'measured' as const,
        },
      };
      expect(await store.admission.settle(closed)).toEqual({ released: true, closed: true });
      expect(await store.admission.settle(closed)).toEqual({ released: false, closed: false });
      expect(await store.admission.admit({ ...request, limits: { keyConcurrency: 2 } })).toEqual({ admitted: true });
      expect((await store.admission.account('mem_upgrade'))?.tokenDays[day]).toBe(70 - 40 + 25 + 10);
    } finally {
      await store.close();
    }
  });
});
