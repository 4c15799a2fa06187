import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement } from '../support/usage-records.ts';

/**
 * 500 concurrent clients on loopback for a bounded time, half streaming, some of them hanging up mid-stream,
 * against two members (one with a concurrency limit that the load exceeds, so refusals happen too). Afterwards
 * the books must balance exactly: one closed record per admitted request, no lease left, and each member's
 * charged total equal to the sum of its records' charges (and of its rollups).
 */
const clients = 500;
/** Clients start new requests for this long; requests already running then finish. */
const loadMilliseconds = 5_000;

let upstream: FakeUpstream;
let gateway: TestGateway;
const members: { memberId: string; key: string }[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  // Streams take a few milliseconds per chunk, so that many are open at once and hang-ups land mid-stream.
  upstream.setScenario((recorded) =>
    (recorded.json as { stream?: unknown } | undefined)?.stream === true
      ? { type: 'answer', delayBetweenChunksMilliseconds: 3, text: 'one two three four five six' }
      : undefined,
  );
  gateway = await startTestGateway({ environment: { GATEWAY_CACHE_TTL_MS: '60000' } });
  await gateway.admin.createConnection({
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['load-model'],
  });
  const limited = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000_000, concurrency: 10 });
  const open = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000_000 });
  members.push(limited, open);
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

interface Outcome {
  status: number;
  requestId: string | undefined;
}

/** One request; `hangUp` closes the connection after the first chunk of the answer. */
function call(agent: Agent, key: string, stream: boolean, hangUp: boolean): Promise<Outcome> {
  const body = JSON.stringify({
    model: 'openai/load-model',
    messages: [{ role: 'user', content: 'load test' }],
    max_tokens: 32,
    ...(stream ? { stream: true } : {}),
  });
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (response) => {
        const outcome = {
          status: response.statusCode ?? 0,
          requestId: response.headers['x-request-id'] as string | undefined,
        };
        response.on('data', () => {
          if (hangUp) {
            outgoing.destroy();
            resolve(outcome);
          }
        });
        response.on('end', () => resolve(outcome));
        response.on('error', () => resolve(outcome));
        response.on('close', () => resolve(outcome));
      },
    );
    outgoing.on('error', (error) => (hangUp ? resolve({ status: -1, requestId: undefined }) : reject(error)));
    outgoing.end(body);
  });
}

async function hourlyRollupCharge(services: GatewayServices, memberId: string): Promise<number> {
  const now = services.now().getTime();
  const hour = (at: number) => new Date(at).toISOString().slice(0, 13);
  await services.rollupFolder.flush();
  const rows = await services.store.rollups.read({
    by: 'hour',
    first: hour(now - 86_400_000),
    last: hour(now + 86_400_000),
    memberId,
  });
  return rows.reduce((sum, row) => sum + row.charge, 0);
}

describe('500 concurrent clients', () => {
  it('lose no usage record, leak no lease, and charge exactly the sum of the records', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: clients });
    const outcomes: Outcome[] = [];
    const deadline = Date.now() + loadMilliseconds;
    try {
      await Promise.all(
        Array.from({ length: clients }, async (_, client) => {
          const { key } = members[client % members.length] as { key: string };
          for (let turn = 0; Date.now() < deadline; turn++) {
            const stream = (client + turn) % 2 === 0;
            const hangUp = stream && (client + turn) % 10 === 0;
            outcomes.push(await call(agent, key, stream, hangUp));
          }
        }),
      );
    } finally {
      agent.destroy();
    }

    const admitted = new Set(outcomes.flatMap((outcome) => (outcome.requestId ? [outcome.requestId] : [])));
    const statuses = outcomes.reduce<Record<number, number>>((counts, outcome) => {
      counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
      return counts;
    }, {});
    // Every client was answered at least once, some were served and some refused (the limited member): the load
    // did what it meant to. How many fit in the window depends on the machine, so no count of successes is asserted.
    expect(outcomes.length).toBeGreaterThanOrEqual(clients);
    expect(statuses[200] ?? 0, JSON.stringify(statuses)).toBeGreaterThan(0);
    expect(statuses[429] ?? 0, JSON.stringify(statuses)).toBeGreaterThan(0);
    expect(Object.keys(statuses).filter((status) => Number(status) >= 500)).toEqual([]);

    const { services } = gateway.host;
    for (const { memberId } of members) {
      const member = await memberAfterSettlement(services, memberId);
      expect(member.leases).toEqual({});
      expect(Object.values(member.keyLeases).flatMap((leases) => Object.keys(leases))).toEqual([]);
      const records = (await allRecords(services)).filter((record) => record.memberId === memberId);
      expect(records.filter((record) => record.state === 'running')).toEqual([]);
      const charged = Object.values(member.tokenDays).reduce((sum, tokens) => sum + tokens, 0);
      const recorded = records.reduce((sum, record) => sum + ('charge' in record ? record.charge : 0), 0);
      expect(charged).toBe(recorded);
      expect(await hourlyRollupCharge(services, memberId)).toBe(recorded);
    }
    // Every admitted request (it carries a request id) has exactly one record, and no record lacks a request.
    const recordIds = (await allRecords(services))
      .filter((record) => members.some((member) => member.memberId === record.memberId))
      .map((record) => record.id);
    expect(recordIds).toHaveLength(new Set(recordIds).size);
    expect(new Set(recordIds)).toEqual(admitted);
  }, 180_000);
});
