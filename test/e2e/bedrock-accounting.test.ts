import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { converseWire } from '../support/fake-bedrock/converse-wire.ts';
import {
  type FakeBedrock,
  type FakeBedrockBehaviour,
  fakeAwsCredentials,
  startFakeBedrock,
} from '../support/fake-bedrock.ts';
import { anthropicMessagesWire } from '../support/fake-upstream/anthropic-messages.ts';
import { mostAllowedUsage } from '../support/fake-upstream/most-allowed-usage.ts';
import { type MemberPolicy, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * The accounting properties of the earlier issues on the Bedrock wire, both its paths — InvokeModel for Anthropic's
 * models (messages end to end) and Converse for the others (through chat): every way an admitted request can end
 * settles it exactly once, charging the reservation and freeing its lease (the request-endings matrix, issue 11);
 * and the reservation bounds what Bedrock may bill, the output allowance always going upstream as `max_tokens` or
 * `inferenceConfig.maxTokens` (the reservation-bounds matrix). The endings are Bedrock's own faults, made by the fake
 * Bedrock: exception frames, a frame whose CRC fails, dropped connections, throttling and server errors before the
 * first byte, an answer without usage, a stream that stalls past the deadline, a client that leaves.
 */
const maxRequestMs = 3_000;
const defaultOutputCap = 4096;
const claude = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
const nova = 'us.amazon.nova-lite-v1:0';
let bedrock: FakeBedrock;
let gateway: TestGateway;

beforeAll(async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', fakeAwsCredentials.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', fakeAwsCredentials.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', fakeAwsCredentials.sessionToken);
  bedrock = await startFakeBedrock();
  gateway = await startTestGateway({ environment: { GATEWAY_MAX_REQUEST_MS: String(maxRequestMs) } });
  await gateway.admin.createConnection({
    provider: 'bedrock',
    wire: 'bedrock',
    region: 'us-east-1',
    baseUrl: bedrock.url,
    models: [claude, nova],
    apiKey: null,
  });
});
afterAll(async () => {
  await gateway?.close();
  await bedrock?.close();
  vi.unstubAllEnvs();
});
afterEach(() => {
  bedrock.reset();
  vi.restoreAllMocks();
});

interface Route {
  name: string;
  path: string;
  body: (text: string, stream: boolean) => Record<string, unknown>;
}

const turn = (text: string) => [{ role: 'user', content: text }];
const routes: Route[] = [
  {
    name: 'messages on Claude (InvokeModel)',
    path: '/v1/messages',
    body: (text, stream) => ({ model: `bedrock/${claude}`, max_tokens: 50, messages: turn(text), stream }),
  },
  {
    name: 'chat on Claude (→ messages, InvokeModel)',
    path: '/v1/chat/completions',
    body: (text, stream) => ({ model: `bedrock/${claude}`, messages: turn(text), stream }),
  },
  {
    name: 'chat on Nova (→ Converse)',
    path: '/v1/chat/completions',
    body: (text, stream) => ({ model: `bedrock/${nova}`, messages: turn(text), stream }),
  },
  {
    name: 'Responses on Nova (→ chat → Converse)',
    path: '/v1/responses',
    body: (text, stream) => ({ model: `bedrock/${nova}`, input: text, stream }),
  },
  {
    name: 'messages on Nova (→ chat → Converse)',
    path: '/v1/messages',
    body: (text, stream) => ({ model: `bedrock/${nova}`, max_tokens: 50, messages: turn(text), stream }),
  },
];

interface Ending {
  name: string;
  behaviour: FakeBedrockBehaviour;
  clientLeaves?: true;
}

const endingsOfBoth: Ending[] = [
  { name: 'a ThrottlingException 429', behaviour: { type: 'error', status: 429, exception: 'ThrottlingException' } },
  {
    name: 'an InternalServerException 500',
    behaviour: { type: 'error', status: 500, exception: 'InternalServerException' },
  },
  { name: 'an answer without usage', behaviour: { type: 'answer', usage: 'omit' } },
  { name: 'a connection dropped before any byte', behaviour: { type: 'reset' } },
  { name: 'no answer before the deadline', behaviour: { type: 'hang' } },
];
const endingsOfStreams: Ending[] = [
  ...endingsOfBoth,
  {
    name: 'an exception frame mid-stream',
    behaviour: { type: 'answer', streamException: { afterEvents: 2, exception: 'modelStreamErrorException' } },
  },
  { name: 'a frame whose CRC fails', behaviour: { type: 'answer', corruptFrameAt: 2 } },
  { name: 'a connection dropped mid-stream', behaviour: { type: 'answer', resetAfterEvents: 2 } },
  { name: 'a stream that stalls past the deadline', behaviour: { type: 'answer', holdAfterEvents: 2 } },
  { name: 'a client that leaves mid-stream', behaviour: { type: 'answer', holdAfterEvents: 2 }, clientLeaves: true },
];

async function exchange(key: string, path: string, body: unknown, clientLeaves: boolean) {
  const controller = new AbortController();
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    signal: controller.signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const requestId = response.headers.get('x-request-id');
  // A client that means to leave mid-stream reads a refusal whole (on a busy machine the deadline can come first).
  if (clientLeaves && response.body && response.status < 400) {
    await response.body.getReader().read();
    controller.abort();
    return { status: response.status, text: '', requestId };
  }
  return { status: response.status, text: await response.text(), requestId };
}

describe('every ending of an admitted Bedrock request settles it once and frees its lease', () => {
  it.each([
    ['streamed', true],
    ['whole', false],
  ] as const)(
    '%s, on both Bedrock paths',
    async (_mode, stream) => {
      const services = gateway.host.services;
      const settlements = vi.spyOn(services.store.admission, 'settle');
      const behaviours = new Map<string, FakeBedrockBehaviour>();
      bedrock.setScenario((request) => {
        const marker = /ending-\d+-\d+/.exec(request.body)?.[0];
        return marker ? behaviours.get(marker) : undefined;
      });
      const endings = stream ? endingsOfStreams : endingsOfBoth;
      const cases = routes.flatMap((route, routeIndex) =>
        endings.map((ending, index) => ({ route, ending, marker: `ending-${routeIndex}-${index}` })),
      );
      await Promise.all(
        cases.map(async ({ route, ending, marker }) => {
          const label = `${route.name}, ${stream ? 'streamed' : 'whole'}: ${ending.name}`;
          behaviours.set(marker, ending.behaviour);
          const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, concurrency: 1 });
          const answer = await exchange(
            key,
            route.path,
            route.body(`Say something (${marker}).`, stream),
            ending.clientLeaves === true,
          );
          if (answer.status >= 400) expect(() => JSON.parse(answer.text), label).not.toThrow();
          expect(answer.requestId, label).toBeTruthy();
          const record = await settledRecord(services, answer.requestId ?? '', maxRequestMs + 15_000);
          expect(record, label).toMatchObject({ source: 'conservative' });
          expect(record.charge, label).toBe(record.reserved);
          expect(
            settlements.mock.calls.filter(([closed]) => closed.record.id === record.id),
            label,
          ).toHaveLength(1);
          const member = await memberAfterSettlement(services, memberId);
          expect(member.leases, label).toEqual({});
          expect(member.tokenDays, label).toEqual({ [record.day]: record.reserved });
        }),
      );
      // Whatever reached Bedrock was signed as the host (on a slow machine the deadline may end a case before).
      expect(bedrock.requests.length).toBeGreaterThan(0);
      expect(bedrock.requests.every((request) => request.refusedAs === undefined)).toBe(true);
      // Fifty requests at once, some waiting out the deadline: more than the default time on a busy machine.
    },
    120_000,
  );
});

describe('the reservation bounds what Bedrock may bill', () => {
  const hello = [{ role: 'user', content: 'Write as much as you may.' }];
  const cases: {
    name: string;
    path: string;
    body: Record<string, unknown>;
    policy?: MemberPolicy;
    cap: number;
    /** The cap in the body Bedrock received. */
    sent: (body: Record<string, unknown>) => unknown;
  }[] = [
    {
      name: 'messages on Claude: max_tokens, as the client asked',
      path: '/v1/messages',
      body: { model: `bedrock/${claude}`, max_tokens: 900, messages: hello },
      cap: 900,
      sent: (body) => body.max_tokens,
    },
    {
      name: 'chat on Claude without a cap: max_tokens the default allowance',
      path: '/v1/chat/completions',
      body: { model: `bedrock/${claude}`, messages: hello },
      cap: defaultOutputCap,
      sent: (body) => body.max_tokens,
    },
    {
      name: 'chat on Nova without a cap: inferenceConfig.maxTokens the default allowance',
      path: '/v1/chat/completions',
      body: { model: `bedrock/${nova}`, messages: hello },
      cap: defaultOutputCap,
      sent: (body) => (body.inferenceConfig as { maxTokens?: number }).maxTokens,
    },
    {
      name: 'chat on Nova, streamed, under the member`s maxOutput: usage from the metadata event',
      path: '/v1/chat/completions',
      body: { model: `bedrock/${nova}`, messages: hello, stream: true },
      policy: { dailyTokens: 1_000_000, maxOutput: 700 },
      cap: 700,
      sent: (body) => (body.inferenceConfig as { maxTokens?: number }).maxTokens,
    },
    {
      name: 'Responses on Nova: max_output_tokens as maxTokens',
      path: '/v1/responses',
      body: { model: `bedrock/${nova}`, input: 'Write as much as you may.', max_output_tokens: 1_200 },
      cap: 1_200,
      sent: (body) => (body.inferenceConfig as { maxTokens?: number }).maxTokens,
    },
    {
      name: 'messages on Nova, streamed: max_tokens as maxTokens',
      path: '/v1/messages',
      body: { model: `bedrock/${nova}`, max_tokens: 800, messages: hello, stream: true },
      cap: 800,
      sent: (body) => (body.inferenceConfig as { maxTokens?: number }).maxTokens,
    },
  ];

  for (const { name, path, body, policy, cap, sent } of cases) {
    it(name, async () => {
      const { key } = await gateway.admin.createMemberWithKey(policy ?? { dailyTokens: 1_000_000 });
      // Bedrock bills the most its request allows: an answer as long as the cap it received.
      bedrock.nextResponse({ type: 'answer', usage: 'most-allowed' });
      const response = await postJson(gateway, key, path, body);
      const text = await response.text();
      expect(response.status, text).toBe(200);
      const received = bedrock.requests[0]?.json as Record<string, unknown>;
      expect(sent(received)).toBe(cap);
      const billed = mostAllowedUsage(
        bedrock.requests[0]?.operation?.startsWith('converse') ? converseWire() : anthropicMessagesWire,
        received,
      );
      expect(billed.outputTokens).toBe(cap);
      const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
      expect(record).toMatchObject({ source: 'measured', outputTokens: cap });
      expect(record.charge).toBeLessThanOrEqual(record.reserved);
    });
  }

  it('leaves no Bedrock request of these tests charged above its reservation', async () => {
    for (const record of await allRecords(gateway.host.services)) {
      if (record.state !== 'running') expect(record.charge).toBeLessThanOrEqual(record.reserved);
    }
  });
});
