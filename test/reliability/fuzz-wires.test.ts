import { Agent } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../shared/http/route-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement } from '../support/usage-records.ts';
import { errorCodeOf, forEachConcurrently, sendRequest } from './support/send-request.ts';
import { type BodyWire, fuzzRequests, type WireCase, wireCases } from './support/wire-cases.ts';

/**
 * Generated requests against every wire route of the route table (a wire added there is fuzzed without a
 * change here): valid bodies, near-valid ones (a field removed or of the wrong type, huge numbers, deep nesting,
 * unknown models, prototype keys), broken encodings (duplicate keys, invalid UTF-8, truncation, overflowing
 * number text), junk, and hostile headers and query strings. Whatever arrives, the gateway never answers 5xx
 * (the fake upstream answers 200, so no status is the upstream's), every error is JSON with a machine-readable
 * code, the process stays up, and no usage record is left `running`.
 *
 * The issue asks for 10,000 bodies per wire. Measured on this 2-core machine: 10,000 per wire (50,000 requests
 * over five wires) take about 170 s, ≈ 3.4 ms a request, because about a third are admitted and settled on the
 * in-process store; that keeps the whole of `npm test` near five minutes. FUZZ_BODIES_PER_WIRE=2000 runs a
 * quicker pass while developing; FUZZ_SEED picks another sequence.
 */
const defaultBodiesPerWire = 10_000;
const bodiesPerWire = Number(process.env.FUZZ_BODIES_PER_WIRE ?? defaultBodiesPerWire);
const seed = Number(process.env.FUZZ_SEED ?? 20_261_121);
const concurrency = 16;
/** Generous for this machine (≈ 7 ms a request when most are admitted), so only a hang times out. */
const timeoutPerWireMs = Math.max(60_000, bodiesPerWire * 30);

let upstream: FakeUpstream;
let gateway: TestGateway;
let memberId: string;
let key: string;
let cases: Record<BodyWire, WireCase>;
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

/** Every POST route with a client wire that takes a body; computed from the route table at collection time. */
const fuzzedRoutes = routeTable.filter(
  (route) => route.method === 'POST' && Object.hasOwn(wireCases('http://unused'), route.wire),
);

beforeAll(async () => {
  upstream = await startFakeUpstream();
  // The production cache time: keys and connections are looked up once, as they are under real traffic.
  gateway = await startTestGateway({ environment: { GATEWAY_CACHE_TTL_MS: '60000' } });
  cases = wireCases(upstream.url);
  const created = new Set<string>();
  for (const wireCase of Object.values(cases)) {
    const identity = JSON.stringify(wireCase.connection);
    if (created.has(identity)) continue;
    created.add(identity);
    await gateway.admin.createConnection(wireCase.connection);
  }
  // A finite allowance, so every request also takes the self-contained-text check and the reservation.
  ({ memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000_000_000 }));
});
afterAll(async () => {
  agent.destroy();
  await gateway?.close();
  await upstream?.close();
});

/**
 * The bodies a route gets: the full count for the first route of each wire, a tenth for a later route of the same
 * wire and function (Google's methods under `/v1/` as under `/v1beta/`): its bodies meet the same reader, which
 * the first route's count already covers; what differs, the path, is covered as well by fewer.
 */
function bodiesFor(route: (typeof fuzzedRoutes)[number]): number {
  const first = fuzzedRoutes.find(
    (candidate) => candidate.wire === route.wire && candidate.functionId === route.functionId,
  );
  return first === route ? bodiesPerWire : Math.ceil(bodiesPerWire / 10);
}

/** Fuzzed requests to one route, its statuses spread over every stage and none answered with a 5xx or a bare error. */
async function fuzzRoute(
  route: (typeof fuzzedRoutes)[number],
  wire: WireCase,
  bodies = bodiesFor(route),
): Promise<void> {
  upstream.reset();
  const requests = fc.sample(
    fuzzRequests(route, wire, {
      valid: key,
      admin: gateway.adminKey,
      prefixes: gateway.host.services.config.upstreamPrefixes,
    }),
    { numRuns: bodies, seed },
  );
  const violations: string[] = [];
  const statuses = new Map<number, number>();
  await forEachConcurrently(requests, concurrency, async (request) => {
    const answer = await sendRequest(agent, gateway.url, request).catch((error: unknown) => ({
      status: 0,
      headers: {},
      body: Buffer.from(String(error)),
    }));
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    const problem = judge(answer);
    if (problem) {
      violations.push(
        `${problem} — ${request.kind} — ${request.path} — body ${request.body.subarray(0, 160).toString('latin1')} — answer ${answer.body.subarray(0, 200).toString()}`,
      );
    }
  });
  // The spread of statuses shows the generator reached every stage, from the read stage to the upstream.
  expect(statuses.get(200) ?? 0, JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(bodies / 20);
  expect(violations.slice(0, 5), `${violations.length} of ${bodies} requests (seed ${seed})`).toEqual([]);
}

describe('fuzzing every wire route', () => {
  it('covers every POST route of a client wire in the route table', () => {
    const clientRoutes = routeTable.filter(
      (route) => route.method === 'POST' && route.wire !== 'admin' && route.wire !== 'usage',
    );
    expect(fuzzedRoutes.map((route) => route.id)).toEqual(clientRoutes.map((route) => route.id));
  });

  it.each(fuzzedRoutes.map((route) => [route.id, route] as const))(
    '%s: never a 5xx, every error JSON with a code',
    (_id, route) => fuzzRoute(route, cases[route.wire as BodyWire]),
    timeoutPerWireMs,
  );

  it(
    'messages translated to a chat connection: never a 5xx, every error JSON with a code',
    () => {
      const route = fuzzedRoutes.find((candidate) => candidate.wire === 'anthropic-messages');
      if (!route) throw new Error('no messages route in the route table');
      // The messages wire's bodies, for the model the chat connection serves: every one goes through the hop.
      return fuzzRoute(route, { ...cases['anthropic-messages'], model: cases['openai-chat'].model });
    },
    timeoutPerWireMs,
  );

  it('leaves the process up, every admitted request settled and no lease held', async () => {
    const wire = cases['openai-chat'];
    const answer = await sendRequest(agent, gateway.url, {
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(wire.validBody(wire.model, 'still there?', false, 16))),
    });
    expect(answer.status).toBe(200);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.leases).toEqual({});
    const records = await allRecords(gateway.host.services);
    expect(records.length).toBeGreaterThan(0);
    const running = records.filter((record) => record.state === 'running');
    expect(running).toEqual([]);
  });
});

/** Found by this suite, and fixed; both bodies are well within the body limit. */
describe('bodies that once reached a 5xx', () => {
  const chatBody = (extra: string) => {
    const wire = cases['openai-chat'];
    const valid = JSON.stringify(wire.validBody(wire.model, 'hello', false, 16));
    return Buffer.from(`${valid.slice(0, -1)},"metadata":${extra}}`);
  };
  const send = (body: Buffer) =>
    sendRequest(agent, gateway.url, {
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });

  // JSON.parse takes any depth, but JSON.stringify of the upstream body overflows the stack at about 10,000
  // levels: such a request was admitted (and charged) and then answered 500. The read stage now refuses it.
  it('refuses a body nested 20,000 levels deep with a 400 before admitting it', async () => {
    const answer = await send(chatBody(`${'['.repeat(20_000)}${']'.repeat(20_000)}`));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ error: { code: 'invalid_json' } });
  });

  // assertSelfContainedText once spread each array into `pending.push(...value)`: above ≈ 120,000 items that was
  // a RangeError (too many arguments) and a 500, for any member with a finite token allowance.
  it('answers a body holding an array of 250,000 numbers without a 5xx', async () => {
    const answer = await send(chatBody(`[${Array.from({ length: 250_000 }, () => '0').join(',')}]`));
    expect(answer.status).toBeLessThan(500);
  });
});

function judge(answer: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }) {
  if (answer.status === 0) return `no answer (${answer.body.toString()})`;
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status < 400) return undefined;
  if (!String(answer.headers['content-type'] ?? '').includes('application/json')) {
    return `error ${answer.status} is not JSON (${answer.headers['content-type']})`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `error ${answer.status} body is not valid JSON`;
  }
  return errorCodeOf(parsed) ? undefined : `error ${answer.status} carries no machine-readable code`;
}
