import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openLocalStore } from '../infra/local/open-local-store.ts';
import { issueKey } from '../shared/auth/key-issuance.ts';
import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { newId } from '../shared/store/ids.ts';
import type { RunningRecord } from '../shared/store/usage-records.ts';

/**
 * `npx tsx bench/store-cpu.ts [--warmup N] [--requests N]`: the CPU of the store's part of one request on the
 * SQLite engine, opened as `npm start` opens it (infra/local/open-local-store.ts: a file in WAL mode, its
 * checkpoints in a worker thread): the admission (checks, counters, lease and running record, one commit)
 * and the settlement (lease, day's charge and the closed record, one commit), one request after the other as one
 * client sends them. In this process, with no HTTP around it: every thread's CPU (`process.cpuUsage`) over the
 * requests, so it is the floor the engine sets under a request's CPU (docs/performance.md).
 */
const { values: options } = parseArgs({
  options: {
    warmup: { type: 'string', default: '3000' },
    requests: { type: 'string', default: '5000' },
  },
});
const folder = await mkdtemp(join(tmpdir(), 'store-cpu-'));
// Opened as `npm start` opens it (its `synchronous`, its checkpoint thread's interval), on the SQLite engine.
const local = await openLocalStore(
  parseGatewayConfig({
    AWS_REGION: 'local',
    GATEWAY_STORE: 'sqlite',
    GATEWAY_SECRET_STORE: 'file',
    GATEWAY_SECRET_FILE: join(folder, 'secrets.json'),
  }),
  folder,
);
const { store } = local;
const startedAt = new Date('2026-11-27T10:00:00.000Z');
const member = await store.members.create({ name: 'bench', role: 'member', policy: { dailyTokens: 1e12 } }, startedAt);
const key = await issueKey(
  store,
  { memberId: member.id, name: 'bench', expiresAt: null, policy: {}, tag: 'gw' },
  startedAt,
);
const day = startedAt.toISOString().slice(0, 10);
const minute = startedAt.toISOString().slice(0, 16);

/** One request's admission and settlement, as the pipeline makes them for a plain chat completion. */
async function oneRequest(): Promise<void> {
  const running: RunningRecord = {
    id: newId('req'),
    memberId: member.id,
    keyId: key.id,
    provider: 'openai',
    model: 'openai/bench-model',
    connectionId: 'con_bench',
    upstream: 'lb',
    wire: 'openai-chat',
    stream: false,
    startedAt: startedAt.toISOString(),
    day,
    reserved: 4_096,
    state: 'running',
  };
  const admission = await store.admission.admit({
    memberId: member.id,
    keyId: key.id,
    generation: 1,
    requestId: running.id,
    day,
    minute,
    reserve: running.reserved,
    now: startedAt.getTime(),
    leaseExpiresAt: startedAt.getTime() + 60_000,
    limits: { dailyTokens: 1e12 },
    running,
  });
  if (!admission.admitted) throw new Error(`refused: ${admission.refusal.reason}`);
  const settlement = await store.admission.settle({
    record: running,
    outcome: {
      state: 'completed',
      status: 200,
      endedAt: startedAt.toISOString(),
      durationMs: 3,
      inputTokens: 12,
      cachedInputTokens: 0,
      outputTokens: 8,
      charge: 20,
      source: 'measured',
    },
  });
  if (!settlement.released) throw new Error('the settlement found no lease');
}

for (let index = 0; index < Number(options.warmup); index++) await oneRequest();
const requests = Number(options.requests);
const loadAtStart = loadavg()[0]?.toFixed(2);
const before = process.cpuUsage();
for (let index = 0; index < requests; index++) await oneRequest();
const used = process.cpuUsage(before);
process.stdout.write(
  `SQLite store, one admission and one settlement: ${((used.user + used.system) / requests).toFixed(0)} µs of CPU ` +
    `per request (${requests} requests); load average ${loadAtStart} → ${loadavg()[0]?.toFixed(2)}\n`,
);
await local.close();
await rm(folder, { recursive: true, force: true });
