import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { admit } from '../../shared/accounting/admit.ts';
import { reapExpiredLeases } from '../../shared/accounting/reap.ts';
import { authenticate } from '../../shared/auth/authenticate.ts';
import type { SseMessage } from '../../shared/sse/sse-event-splitter.ts';
import type { UsageRecord } from '../../shared/store/usage-records.ts';
import { csvColumns } from '../../shared/usage/usage-csv.ts';
import { anthropicMessagesUpstreamWire } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { geminiUpstreamWire } from '../../shared/wires/gemini/gemini-upstream-wire.ts';
import { openaiChatUpstreamWire } from '../../shared/wires/openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesUpstreamWire } from '../../shared/wires/openai-responses/openai-responses-upstream-wire.ts';
import { createStreamGate, type FakeUpstream, type UpstreamBehaviour } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';
import { parseCsv } from '../usage/parse-csv.ts';
import { UsageClient } from '../usage/usage-client.ts';

/**
 * Every way an admitted request can end, from the outside (docs/request-states.md is the table): each settles
 * exactly once and frees its lease, and its record says how it ended — `completed` only when the answer came
 * whole (measured when the provider reported usage, else the reservation as the charge), `failed` otherwise, with
 * the reservation as the charge — and the CSV row, the details API and the totals' counts say the same. On every
 * route, passed through and translated, streamed and not. Each ending is a real answer or a real fault of the
 * fake upstream or of a real client: a whole answer, one without usage, an answer that is not one, a connection
 * reset before the headers, mid-answer and after the closing event, a stream that ends cleanly before its
 * closing event, the upstream's own error event mid-stream, an error status, an upstream that never answers or
 * stalls mid-stream past the request's deadline, and a client that leaves mid-stream; a fault of the gateway's own
 * (injected: no real part produces one) and a process that died (the reaper) complete the table. Every case runs
 * at once, each for its own member with one concurrency slot; the upstream tells them apart by a marker in the
 * prompt.
 */
// Long enough that ~100 cases at once on a loaded 2-core runner all finish their answers before it (at 3 s a whole
// answer there sometimes met the deadline first and was recorded failed); the cases that wait for it wait together.
const maxRequestMs = 10_000;
const fixture = useGatewayFixture({
  connections: [...acmeOnEveryWire, ...alphaRoutes],
  environment: { GATEWAY_MAX_REQUEST_MS: String(maxRequestMs) },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
const behaviours = new Map<string, UpstreamBehaviour>();

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});
afterEach(() => {
  vi.restoreAllMocks();
});

interface Route {
  name: string;
  path: (stream: boolean) => string;
  body: (text: string, stream: boolean) => Record<string, unknown>;
}

const chatTurn = (text: string) => [{ role: 'user', content: text }];
const routes: Route[] = [
  {
    name: 'chat',
    path: () => '/v1/chat/completions',
    body: (text, stream) => ({ model: 'acme/acme-1', messages: chatTurn(text), stream }),
  },
  {
    name: 'Responses',
    path: () => '/v1/responses',
    body: (text, stream) => ({ model: 'acme/acme-r', input: text, stream }),
  },
  {
    name: 'messages',
    path: () => '/v1/messages',
    body: (text, stream) => ({ model: 'acme/acme-m', max_tokens: 50, messages: chatTurn(text), stream }),
  },
  {
    name: 'generate-content (server-sent events)',
    path: (stream) => `/v1beta/models/acme/acme-g:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    body: (text) => ({ contents: [{ parts: [{ text }] }] }),
  },
  {
    name: 'generate-content (a JSON array)',
    path: (stream) => `/v1beta/models/acme/acme-g:${stream ? 'streamGenerateContent' : 'generateContent'}`,
    body: (text) => ({ contents: [{ parts: [{ text }] }] }),
  },
  {
    name: 'messages on K2.7 (thinking mode)',
    path: () => '/v1/messages',
    body: (text, stream) => ({ model: 'alpha-k2.7-code', max_tokens: 3_000, messages: chatTurn(text), stream }),
  },
  {
    name: 'chat on K2.7 (→ messages)',
    path: () => '/v1/chat/completions',
    body: (text, stream) => ({ model: 'alpha-k2.7-code', messages: chatTurn(text), stream }),
  },
  {
    name: 'Responses on a chat connection (→ chat)',
    path: () => '/v1/responses',
    body: (text, stream) => ({ model: 'acme/acme-1', input: text, stream }),
  },
  {
    name: 'Responses on K2.7 (→ chat → messages)',
    path: () => '/v1/responses',
    body: (text, stream) => ({ model: 'alpha-k2.7-code', input: text, stream }),
  },
  {
    name: 'messages on a chat connection (→ chat)',
    path: () => '/v1/messages',
    body: (text, stream) => ({ model: 'acme/acme-1', max_tokens: 50, messages: chatTurn(text), stream }),
  },
  {
    name: 'messages on K3 (→ chat)',
    path: () => '/v1/messages',
    body: (text, stream) => ({ model: 'alpha-k3', max_tokens: 50, messages: chatTurn(text), stream }),
  },
];

/** How a request that ended so is recorded (docs/request-states.md). */
interface Expected {
  state: 'completed' | 'failed';
  source: 'measured' | 'conservative';
}

const measuredAnswer: Expected = { state: 'completed', source: 'measured' };
const conservativeAnswer: Expected = { state: 'completed', source: 'conservative' };
const failure: Expected = { state: 'failed', source: 'conservative' };

interface Ending {
  name: string;
  behaviour: () => UpstreamBehaviour;
  expected: Expected;
  /** The client reads the first chunk of the stream, then goes away. */
  clientLeaves?: true;
  /** The gateway itself fails while it relays or reads the answer (injected, see `injectGatewayFault`). */
  gatewayFault?: true;
}

/** A word in the prompt, so in the fake's echo, that tells the injected gateway fault where to strike. */
const faultWord = 'gatewayfault';

const endingsOfBoth: Ending[] = [
  { name: 'a whole answer', behaviour: () => ({ type: 'answer' }), expected: measuredAnswer },
  {
    name: 'an answer without usage',
    behaviour: () => ({ type: 'answer', usage: 'omit' }),
    expected: conservativeAnswer,
  },
  {
    name: 'a 200 that is not an answer',
    behaviour: () => ({ type: 'error', status: 200, body: '<html>' }),
    expected: failure,
  },
  { name: 'a reset before any byte', behaviour: () => ({ type: 'answer', resetAfterChunks: 0 }), expected: failure },
  {
    name: 'a reset after part of the answer',
    behaviour: () => ({ type: 'answer', resetAfterChunks: 1 }),
    expected: failure,
  },
  { name: 'an upstream 500', behaviour: () => ({ type: 'error', status: 500 }), expected: failure },
  { name: 'an upstream that never answers', behaviour: () => ({ type: 'hang' }), expected: failure },
  {
    name: 'a fault of the gateway`s own',
    behaviour: () => ({ type: 'answer' }),
    expected: failure,
    gatewayFault: true,
  },
];
const endingsOfStreams: Ending[] = [
  ...endingsOfBoth,
  {
    name: 'a stream whose body is not server-sent events',
    behaviour: () => ({
      type: 'error',
      status: 200,
      body: 'data: {not json',
      headers: { 'content-type': 'text/event-stream' },
    }),
    expected: failure,
  },
  {
    name: 'a stream that ends cleanly before its closing event',
    behaviour: () => ({ type: 'answer', endAfterChunks: 2 }),
    expected: failure,
  },
  {
    name: 'a connection that breaks after the closing event',
    behaviour: () => ({ type: 'answer', resetAtEnd: true }),
    expected: measuredAnswer,
  },
  {
    name: 'the upstream`s error event mid-stream',
    behaviour: () => ({ type: 'answer', streamError: { afterChunks: 2 } }),
    expected: failure,
  },
  {
    name: 'a stream that stalls past the deadline',
    behaviour: () => ({ type: 'answer', gate: createStreamGate({ initiallyReleased: 2 }) }),
    expected: failure,
  },
  {
    name: 'a client that leaves mid-stream',
    behaviour: () => ({ type: 'answer', delayBetweenChunksMilliseconds: 200 }),
    expected: failure,
    clientLeaves: true,
  },
];
const endingsOfWholeAnswers: Ending[] = [
  ...endingsOfBoth,
  {
    name: 'headers, then a body that never comes',
    behaviour: () => ({ type: 'answer', stallAfterHeaders: true }),
    expected: failure,
  },
];

/**
 * A fault of the gateway's own, which no real part produces: reading a stream event (a relay's fault, mid-stream)
 * or a whole answer's usage (after the answer was read) throws, for answers that echo `faultWord` only.
 */
function injectGatewayFault(): void {
  for (const wire of [
    openaiChatUpstreamWire,
    openaiResponsesUpstreamWire,
    anthropicMessagesUpstreamWire,
    geminiUpstreamWire,
  ] as const) {
    const parseEvent = wire.parseEvent.bind(wire) as (message: SseMessage) => unknown;
    vi.spyOn(wire as { parseEvent: (message: SseMessage) => unknown }, 'parseEvent').mockImplementation((message) => {
      if (message.data.includes(faultWord)) throw new Error('a relay fault (injected)');
      return parseEvent(message);
    });
    const usageOfAnswer = wire.usageOfAnswer.bind(wire);
    vi.spyOn(wire, 'usageOfAnswer').mockImplementation((answer) => {
      if (JSON.stringify(answer ?? null).includes(faultWord)) throw new Error('a usage reader fault (injected)');
      return usageOfAnswer(answer);
    });
  }
}

/**
 * The record as its member reads it everywhere the usage view does: the details API's row and the CSV's, and the
 * totals' counts, all of one request (each case has a member of its own), after the rollups took it.
 */
async function expectViewsAgree(key: string, record: UsageRecord, label: string): Promise<void> {
  await gateway.host.services.rollupFolder.flush();
  const usage = new UsageClient(gateway.url, key);
  const [summary, details, csv] = await Promise.all([usage.summary(), usage.requests(), usage.csv()]);
  if (record.state === 'running') throw new Error(`${label}: the record is still running`);
  const { state, status, charge, source } = record;
  expect(details.rows, label).toHaveLength(1);
  expect(details.rows[0], label).toMatchObject({ id: record.id, state, status, charge, source });
  const [header, ...rows] = parseCsv(csv.text);
  expect(header, label).toEqual([...csvColumns]);
  expect(rows, label).toHaveLength(1);
  const cell = (column: (typeof csvColumns)[number]) => rows[0]?.[csvColumns.indexOf(column)];
  expect(
    {
      id: cell('request_id'),
      state: cell('state'),
      status: cell('status'),
      charge: cell('charge'),
      source: cell('source'),
    },
    label,
  ).toEqual({ id: record.id, state, status: String(status), charge: String(charge), source });
  expect(summary.totals, label).toMatchObject({
    requests: 1,
    completed: state === 'completed' ? 1 : 0,
    failed: state === 'failed' ? 1 : 0,
    running: 0,
    charge: { value: charge, reportedBy: 1 },
  });
}

/** Sends the request and ends the exchange as the case says; resolves with the status and whatever was read. */
async function exchange(key: string, path: string, body: unknown, clientLeaves: boolean) {
  const controller = new AbortController();
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    signal: controller.signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (clientLeaves && response.body) {
    const reader = response.body.getReader();
    await reader.read();
    controller.abort();
    return { status: response.status, text: '', requestId: response.headers.get('x-request-id') };
  }
  return { status: response.status, text: await response.text(), requestId: response.headers.get('x-request-id') };
}

describe('every ending of an admitted request settles it once and frees its lease', () => {
  // Every route and ending at once, so the cases that wait for the deadline wait for it together. The upstream's
  // scenario is set in the test, after the fixture's reset.
  it.each([
    ['streamed', true],
    ['whole', false],
  ] as const)('%s, on every route', async (_mode, stream) => {
    const services = gateway.host.services;
    const settlements = vi.spyOn(services.store.admission, 'settle');
    injectGatewayFault();
    upstream.setScenario((request) => {
      const marker = /ending-\d+-\d+/.exec(request.rawBody)?.[0];
      return marker ? behaviours.get(marker) : undefined;
    });
    const endings = stream ? endingsOfStreams : endingsOfWholeAnswers;
    const cases = routes.flatMap((route, routeIndex) =>
      endings.map((ending, index) => ({ route, ending, marker: `ending-${routeIndex}-${index}` })),
    );
    await Promise.all(
      cases.map(async ({ route, ending, marker }) => {
        const label = `${route.name}, ${stream ? 'streamed' : 'whole'}: ${ending.name}`;
        behaviours.set(marker, ending.behaviour());
        const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, concurrency: 1 });
        const answer = await exchange(
          key,
          route.path(stream),
          route.body(`Say something (${marker})${ending.gatewayFault ? ` ${faultWord}` : ''}.`, stream),
          ending.clientLeaves === true,
        );
        // A refusal before the answer began is a JSON error (a one-element array in the JSON-array framing).
        if (answer.status >= 400) expect(() => JSON.parse(answer.text), label).not.toThrow();
        expect(answer.requestId, label).toBeTruthy();
        const record = await settledRecord(services, answer.requestId!, maxRequestMs + 15_000);
        expect(record, label).toMatchObject(ending.expected);
        // The status the client was sent (200 for a stream once its answer began).
        expect(record.status, label).toBe(answer.status);
        if (record.source === 'conservative') expect(record.charge, label).toBe(record.reserved);
        else expect(record.charge, label).toBe((record.inputTokens ?? 0) + (record.outputTokens ?? 0));
        expect(
          settlements.mock.calls.filter(([closed]) => closed.record.id === record.id),
          label,
        ).toHaveLength(1);
        const member = await memberAfterSettlement(services, memberId);
        expect(member.leases, label).toEqual({});
        expect(member.tokenDays, label).toEqual({ [record.day]: record.charge });
        await expectViewsAgree(key, record, label);
      }),
    );
    behaviours.clear();
  });

  it('a request whose process died: the reaper closes it as failed, and every view says so', async () => {
    const services = gateway.host.services;
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, concurrency: 1 });
    const principal = await authenticate(services, { authorization: `Bearer ${key}` });
    const requestId = 'req_process_died';
    const admission = await admit(services, { principal, requestId, reserve: 500 });
    await services.store.records.putRunning({
      id: requestId,
      memberId,
      keyId: principal.keyId,
      provider: 'acme',
      model: 'acme/acme-1',
      connectionId: 'con_died',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: true,
      startedAt: admission.admittedAt.toISOString(),
      day: admission.day,
      reserved: 500,
      state: 'running',
    });
    // The reaper's rule, applied to this lease as if it had expired (the clock stays where the run holds it).
    const leases = await services.store.admission.expiredLeases(Number.MAX_SAFE_INTEGER);
    const died = leases.filter((lease) => lease.requestId === requestId);
    expect(died).toHaveLength(1);
    expect(await reapExpiredLeases(services, died)).toBe(1);
    const record = await settledRecord(services, requestId);
    expect(record).toMatchObject({ ...failure, status: 500, charge: 500 });
    expect((await memberAfterSettlement(services, memberId)).leases).toEqual({});
    await expectViewsAgree(key, record, 'a process that died');
  });
});
