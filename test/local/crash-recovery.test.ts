import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataFolderLockPath } from '../../infra/local/data-folder-lock.ts';
import { sqliteDatabasePath } from '../../infra/local/open-local-store.ts';
import { generateKeySecret } from '../../shared/auth/key-secret.ts';
import { openSqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';
import type { UsageRecord } from '../../shared/store/usage-records.ts';
import { createStreamGate, type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { type GatewayChild, startGatewayChild } from '../support/gateway-child.ts';
import { AdminClient } from '../support/test-gateway.ts';

/*
 * Issue 19 item 7: the one-machine host killed with SIGKILL while 30 streams and a few plain requests run, then
 * started again on the same data folder. One process owns the folder, so what the dead one left running is settled
 * at the start, as the reaper settles it, and no member's concurrency stays taken by its leases. Every step waits
 * for a state it can see (a chunk received, a request at the upstream, a row in the database), never for a time.
 */

let upstream: FakeUpstream;
let dataDir: string;
const children: GatewayChild[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-crash-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await upstream?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(adminKey: string): Promise<GatewayChild> {
  const child = await startGatewayChild({ dataDir, adminKey, environment: { GATEWAY_CACHE_TTL_MS: '0' } });
  children.push(child);
  return child;
}

const model = 'openai/crash-model';
const streamCount = 30;
const heldPlainCount = 3;
const finishedPlainCount = 10;

function chat(url: string, key: string, content: string, stream: boolean): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content }] }),
  });
}

/** Polls the database file the running gateway writes (WAL: a second reader never blocks it) until `done`. */
async function untilStored(check: (database: Database.Database) => boolean): Promise<void> {
  const database = new Database(sqliteDatabasePath(dataDir), { readonly: true, fileMustExist: true });
  try {
    while (!check(database)) await sleep(20);
  } finally {
    database.close();
  }
}

describe('a crash of the one-machine host', () => {
  it('costs no one their concurrency: the next start settles what the dead process left running', async () => {
    const adminKey = generateKeySecret('gw');
    const first = await start(adminKey);
    const admin = new AdminClient(first.url, adminKey);
    await admin.createConnection({
      provider: 'openai',
      wire: 'openai-chat',
      baseUrl: `${upstream.url}/v1`,
      models: ['crash-model'],
    });
    const { memberId, key } = await admin.createMemberWithKey({ concurrency: 40, dailyTokens: 10_000_000 });

    // Each stream sends its first chunk, then holds; plain requests marked "hold" never get an answer.
    upstream.setScenario((request) => {
      const body = request.json as { stream?: boolean; messages?: { content?: string }[] };
      if (body.stream) return { type: 'answer', gate: createStreamGate({ initiallyReleased: 1 }) };
      if (body.messages?.[0]?.content === 'hold') return { type: 'hang' };
      return undefined;
    });

    const finished: string[] = [];
    for (let index = 0; index < finishedPlainCount / 2; index++) {
      const response = await chat(first.url, key, `plain ${index}`, false);
      expect(response.status).toBe(200);
      await response.json();
      finished.push(response.headers.get('x-request-id') as string);
    }
    const streams = await Promise.all(
      Array.from({ length: streamCount }, async () => {
        const response = await chat(first.url, key, 'stream', true);
        expect(response.status).toBe(200);
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        // The first chunk arrived: the request is admitted, its record running, its lease held.
        expect((await reader.read()).done).toBe(false);
        return { id: response.headers.get('x-request-id') as string, reader };
      }),
    );
    const held = Array.from({ length: heldPlainCount }, () =>
      chat(first.url, key, 'hold', false).then(
        () => 'answered',
        () => 'cut',
      ),
    );
    // A trickle of plain requests keeps finishing while the streams and held requests run.
    for (let index = finishedPlainCount / 2; index < finishedPlainCount; index++) {
      const response = await chat(first.url, key, `plain ${index}`, false);
      expect(response.status).toBe(200);
      await response.json();
      finished.push(response.headers.get('x-request-id') as string);
    }
    const expectedRunning = streamCount + heldPlainCount;
    // Until the store shows the state the kill must meet: the finished ones settled, the rest running.
    await untilStored((database) => {
      const rows = database.prepare('SELECT id, state FROM records WHERE member_id = ?').all(memberId) as {
        id: string;
        state: string;
      }[];
      const running = rows.filter((row) => row.state === 'running').length;
      const settled = new Set(rows.filter((row) => row.state !== 'running').map((row) => row.id));
      return running === expectedRunning && finished.every((id) => settled.has(id));
    });

    first.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(await Promise.all(held)).toEqual(Array.from({ length: heldPlainCount }, () => 'cut'));
    await Promise.all(streams.map(({ reader }) => reader.read().catch(() => undefined)));

    upstream.setScenario(undefined);
    const second = await start(adminKey);
    expect(second.output()).toContain(`the previous gateway (pid ${first.pid}) stopped without closing`);
    expect(second.output()).toContain(
      `settled ${expectedRunning} requests the previous process left running (failed, charged their reservations); ` +
        `${expectedRunning} leases freed`,
    );

    // The member's whole concurrency is free: 40 at once, none refused.
    const afterRestart = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const response = await chat(second.url, key, `after ${index}`, false);
        await response.text();
        return response.status;
      }),
    );
    expect(afterRestart).toEqual(Array.from({ length: 40 }, () => 200));

    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const store = openSqliteStore({ path: sqliteDatabasePath(dataDir), synchronous: 'normal' });
    try {
      const { records } = await store.records.newest({
        from: new Date(Date.now() - 86_400_000).toISOString(),
        to: new Date(Date.now() + 86_400_000).toISOString(),
      });
      const byId = new Map<string, UsageRecord>(records.map((record) => [record.id, record]));
      expect(records.filter((record) => record.state === 'running')).toEqual([]);
      // Every request a client saw finish keeps what its own settlement recorded.
      for (const id of finished) {
        expect(byId.get(id)).toMatchObject({ state: 'completed', status: 200, source: 'measured' });
      }
      // The cut ones, settled as the reaper settles a request whose process died: failed, the reservation charged.
      const cut = records.filter((record) => record.state !== 'running' && record.status === 500);
      expect(cut).toHaveLength(expectedRunning);
      for (const record of cut) {
        expect(record).toMatchObject({ state: 'failed', source: 'conservative', charge: record.reserved });
      }
      for (const { id } of streams) expect(cut.map((record) => record.id)).toContain(id);
      const account = await store.admission.account(memberId);
      expect(account?.leases).toEqual({});
      expect(records.filter((record) => record.state === 'completed')).toHaveLength(finishedPlainCount + 40);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('refuses a second live gateway on a data folder another one owns, with a clear message', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'gateway-owned-'));
    try {
      const adminKey = generateKeySecret('gw');
      const owner = await startGatewayChild({ dataDir: folder, adminKey });
      children.push(owner);
      await expect(startGatewayChild({ dataDir: folder, adminKey })).rejects.toThrow(
        `The data folder ${folder} is in use by another gateway (pid ${owner.pid})`,
      );
      owner.kill('SIGTERM');
      expect(await owner.exited).toBe(0);
      // A stop lets go of the folder before the process ends (it once ended while its store was closing, lock kept).
      expect(existsSync(dataFolderLockPath(folder)), owner.output()).toBe(false);
      // Closed cleanly, it let go: the next start takes the folder and finds nothing left running.
      const next = await startGatewayChild({ dataDir: folder, adminKey });
      children.push(next);
      expect(next.output()).toContain('no request was left running by an earlier process');
      expect(next.output(), `owner ${owner.pid}:\n${owner.output()}`).not.toContain('stopped without closing');
      next.kill('SIGTERM');
      expect(await next.exited).toBe(0);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 120_000);
});
