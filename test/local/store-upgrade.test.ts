import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit } from '../../shared/accounting/admit.ts';
import { utcDay } from '../../shared/accounting/utc-buckets.ts';
import { authenticate } from '../../shared/auth/authenticate.ts';
import { hashKeySecret } from '../../shared/auth/key-secret.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement } from '../support/usage-records.ts';

/**
 * Upgrading keeps the data: a data folder written by the dynalite-backed store (the `dynamodb` engine on the
 * embedded dynalite, the same tables and items as every earlier version wrote) is imported into SQLite on the first
 * start on the `sqlite` engine, and everything the gateway stored reads back the same through the store port.
 */
let dataDir: string;
let upstream: FakeUpstream;
const adminKey = 'sk-gw-upgrade-admin-key-0000000001';
const legacyFile = new URL('../fixtures/legacy-usage/engine-0.1.jsonl', import.meta.url);

/** Everything the store port can read back, in a stable order. */
async function everything(services: GatewayServices, secrets: readonly string[]) {
  const { store } = services;
  await services.rollupFolder.flush();
  const byId = <T extends { id: string }>(items: T[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));
  const members = byId(await store.members.list());
  const day = utcDay(services.now());
  const hour = (offset: number) => new Date(services.now().getTime() + offset).toISOString().slice(0, 13);
  const accounts = await Promise.all(members.map((member) => store.admission.account(member.id)));
  return {
    members,
    accounts: accounts.map(
      (account) => account && { ...account, keys: sortedKeys(account.keys), leases: withoutStart(account.leases) },
    ),
    firstAdministrator: await store.members.firstAdministrator(),
    keys: byId(await store.keys.list()),
    keyGenerations: await Promise.all(
      byId(await store.keys.list()).map(async (key) => (await store.keys.get(key.id))?.generation),
    ),
    secretLookups: await Promise.all(secrets.map((secret) => store.keys.findBySecretHash(hashKeySecret(secret)))),
    connections: byId(await store.connections.list()),
    records: byId(await allRecords(services)),
    hourRollups: sortRows(await store.rollups.read({ by: 'hour', first: hour(-86_400_000), last: hour(86_400_000) })),
    dayRollups: sortRows(await store.rollups.read({ by: 'day', first: day, last: day })),
    legacyRecords: await store.legacyUsage.list(),
    expiredLeases: (await store.admission.expiredLeases(Number.MAX_SAFE_INTEGER)).map(
      ({ startedAt: _startedAt, ...lease }) => lease,
    ),
  };
}

/** The DynamoDB engine keeps each lease's admission instant too (to find its record by it); SQLite finds it by id. */
const withoutStart = (leases: Record<string, { startedAt?: string | undefined }>) =>
  Object.fromEntries(Object.entries(leases).map(([id, { startedAt: _startedAt, ...lease }]) => [id, lease]));
const sortedKeys = (keys: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(keys).sort(([a], [b]) => a.localeCompare(b)));
const sortRows = (rows: readonly object[]) => rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-upgrade-'));
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  await upstream?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('upgrading a data folder of the dynalite store to SQLite', () => {
  let before: Awaited<ReturnType<typeof everything>>;
  const secrets: string[] = [adminKey];
  let memberKey: string;
  let rotatedAway: string;
  let revoked: string;

  it('starts on the dynalite store and writes every kind of data', async () => {
    const old: TestGateway = await startTestGateway({ dataDir, adminKey, environment: { GATEWAY_STORE: 'dynamodb' } });
    try {
      expect(old.host.services.store.engine).toBe('dynamodb');
      await old.admin.createConnection({
        provider: 'acme',
        wire: 'openai-chat',
        baseUrl: `${upstream.url}/v1`,
        models: ['acme-1'],
      });
      const member = await old.admin.createMemberWithKey(
        { dailyTokens: 100_000, rpm: 50, concurrency: 4 },
        { rpm: 20 },
      );
      memberKey = member.key;
      const client = new OpenAI({ apiKey: member.key, baseURL: old.baseURL, maxRetries: 0 });
      for (let request = 0; request < 3; request++) {
        await client.chat.completions.create({
          model: 'acme/acme-1',
          messages: [{ role: 'user', content: `hi ${request}` }],
        });
      }
      await memberAfterSettlement(old.host.services, member.memberId);
      // A request still open at the upgrade: its lease and reservation must survive it.
      const principal = await authenticate(old.host.services, { authorization: `Bearer ${member.key}` });
      await admit(old.host.services, { principal, requestId: 'req_open_at_upgrade', reserve: 321 });

      const rotating = await old.admin.createKey(member.memberId);
      rotatedAway = rotating.key;
      const rotated = await old.admin.call<{ key: string }>('POST', `/keys/${rotating.id}/rotate`);
      const gone = await old.admin.createKey(member.memberId);
      revoked = gone.key;
      await old.admin.call('POST', `/keys/${gone.id}/revoke`);
      await old.admin.call('POST', '/holders', { wallet: '0xupgrade', usd: 250 });
      const holder = await old.admin.call<{ key: string }>('POST', '/holders/0xupgrade/keys');
      const suspended = await old.admin.createMember();
      await old.admin.call('POST', `/members/${suspended}/suspend`);
      const lines = (await readFile(legacyFile, 'utf8')).split('\n').filter((line) => line.trim() !== '');
      await old.admin.call('POST', '/legacy-usage', { records: lines.map((line) => JSON.parse(line)) });
      secrets.push(member.key, rotating.key, rotated.key, gone.key, holder.key);

      before = await everything(old.host.services, secrets);
      expect(before.records.length).toBe(3);
      expect(before.hourRollups.length).toBeGreaterThan(0);
      expect(before.legacyRecords.length).toBeGreaterThan(0);
      expect(before.expiredLeases.map((lease) => lease.requestId)).toEqual(['req_open_at_upgrade']);
      expect(before.secretLookups.every((lookup) => lookup !== undefined)).toBe(true);
    } finally {
      await old.close();
    }
  });

  it('imports all of it into SQLite on the first start on sqlite, says so, and loses nothing', async () => {
    const upgraded = await startTestGateway({ dataDir, adminKey, environment: { GATEWAY_STORE: 'sqlite' } });
    try {
      expect(upgraded.host.services.store.engine).toBe('sqlite');
      expect(existsSync(join(dataDir, 'gateway.sqlite'))).toBe(true);
      expect(upgraded.host.storeNotes.join('\n')).toMatch(/Upgrade: imported .* 3 usage records/);
      // The request open at the upgrade was imported with its lease, and belonged to the process that stopped: the
      // first start, owning the data folder, settles it as the reaper would (failed, its reservation charged).
      expect(upgraded.host.storeNotes.join('\n')).toContain('settled 1 request the previous process left running');
      const after = await everything(upgraded.host.services, secrets);
      expect(after.records.find((record) => record.id === 'req_open_at_upgrade')).toMatchObject({
        state: 'failed',
        charge: 321,
        source: 'conservative',
      });
      expect(after.expiredLeases).toEqual([]);
      const { records, accounts, hourRollups, dayRollups, expiredLeases: _after, ...unchanged } = after;
      const {
        records: recordsBefore,
        accounts: _accounts,
        hourRollups: hoursBefore,
        dayRollups: daysBefore,
        expiredLeases: _before,
        ...unchangedBefore
      } = before;
      expect(unchanged).toEqual(unchangedBefore);
      expect(records.filter((record) => record.id !== 'req_open_at_upgrade')).toEqual(recordsBefore);
      expect(accounts.every((account) => Object.keys(account?.leases ?? {}).length === 0)).toBe(true);
      expect(hourRollups.length).toBeGreaterThanOrEqual(hoursBefore.length);
      expect(dayRollups.length).toBeGreaterThanOrEqual(daysBefore.length);

      // And it works as before: the member's key is admitted within its limits, the rotated-away and revoked ones
      // are refused for their reasons.
      const answer = (key: string) =>
        fetch(`${upgraded.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'after' }] }),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as { error?: { code?: string } },
        }));
      expect((await answer(memberKey)).status).toBe(200);
      expect((await answer(rotatedAway)).body.error?.code).toBe('key_rotated');
      expect((await answer(revoked)).body.error?.code).toBe('key_revoked');
    } finally {
      await upgraded.close();
    }
  });

  it('imports only once: a later start opens the SQLite database as it is', async () => {
    const again = await startTestGateway({ dataDir, adminKey, environment: { GATEWAY_STORE: 'sqlite' } });
    try {
      expect(again.host.storeNotes.join('\n')).not.toContain('Upgrade');
      // The three before the upgrade, the one settled at the first start, the one made after it.
      expect((await allRecords(again.host.services)).length).toBe(5);
      expect(again.host.storeNotes).toContain('no request was left running by an earlier process');
    } finally {
      await again.close();
    }
  });
});
