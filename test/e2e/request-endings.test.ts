import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStreamGate, type FakeUpstream, type UpstreamBehaviour } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * Issue 11, requirement 4, from the outside: every way an admitted request can end settles it exactly once, with
 * the reservation as its charge, and frees its lease — on every route, passed through and translated, streamed and
 * not. Each ending is a real fault of the fake upstream or a real client: an answer that is not one, a connection
 * reset before and after the headers, the upstream's own error event mid-stream, an error status, an upstream that
 * never answers or stalls mid-stream past the request's deadline, and a client that leaves mid-stream. Every case
 * runs at once, each for its own member with one concurrency slot; the upstream tells them apart by a marker in
 * the prompt.
 */
const maxRequestMs = 3_000;
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

interface Ending {
  name: string;
  behaviour: () => UpstreamBehaviour;
  /** The client reads the first chunk of the stream, then goes away. */
  clientLeaves?: true;
}

const endingsOfBoth: Ending[] = [
  { name: 'a 200 that is not an answer', behaviour: () => ({ type: 'error', status: 200, body: '<html>' }) },
  { name: 'an answer without usage', behaviour: () => ({ type: 'answer', usage: 'omit' }) },
  { name: 'a reset before any byte', behaviour: () => ({ type: 'answer', resetAfterChunks: 0 }) },
  { name: 'a reset after part of the answer', behaviour: () => ({ type: 'answer', resetAfterChunks: 1 }) },
  { name: 'an upstream 500', behaviour: () => ({ type: 'error', status: 500 }) },
  { name: 'an upstream that never answers', behaviour: () => ({ type: 'hang' }) },
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
  },
  {
    name: 'the upstream`s error event mid-stream',
    behaviour: () => ({ type: 'answer', streamError: { afterChunks: 2 } }),
  },
  {
    name: 'a stream that stalls past the deadline',
    behaviour: () => ({ type: 'answer', gate: createStreamGate({ initiallyReleased: 2 }) }),
  },
  {
    name: 'a client that leaves mid-stream',
    behaviour: () => ({ type: 'answer', delayBetweenChunksMilliseconds: 200 }),
    clientLeaves: true,
  },
];
const endingsOfWholeAnswers: Ending[] = [
  ...endingsOfBoth,
  { name: 'headers, then a body that never comes', behaviour: () => ({ type: 'answer', stallAfterHeaders: true }) },
];

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
          route.body(`Say something (${marker}).`, stream),
          ending.clientLeaves === true,
        );
        // A refusal before the answer began is a JSON error (a one-element array in the JSON-array framing).
        if (answer.status >= 400) expect(() => JSON.parse(answer.text), label).not.toThrow();
        expect(answer.requestId, label).toBeTruthy();
        const record = await settledRecord(services, answer.requestId!, maxRequestMs + 15_000);
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
    behaviours.clear();
  });
});
