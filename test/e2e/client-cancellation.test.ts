import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { createStreamGate, type FakeUpstream } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient, googleClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * Spec §4.5 rule 4 on every streamed route, passed through and translated: when the client cancels, the gateway
 * aborts its upstream request, and the reservation stays the charge because final usage never came. The upstream
 * sends one chunk and then waits for ever, so only the gateway's abort can close its request.
 */
const fixture = useGatewayFixture({
  connections: [...acmeOnEveryWire, ...alphaRoutes],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  const { key } = fixture.member;
  openai = openaiClient(gateway, key);
  anthropic = anthropicClient(gateway, key);
  google = googleClient(gateway, key);
});

/** Starts a stream under the signal; resolves with its request id and its events once the first arrived. */
type StartStream = (signal: AbortSignal) => Promise<{ requestId: string | null; events: AsyncIterator<unknown> }>;

const hello = 'Say something long.';
const streams: [string, StartStream][] = [
  [
    'chat',
    async (signal) => {
      const { data, response } = await openai.chat.completions
        .create({ model: 'acme/acme-1', messages: [{ role: 'user', content: hello }], stream: true }, { signal })
        .withResponse();
      return { requestId: response.headers.get('x-request-id'), events: data[Symbol.asyncIterator]() };
    },
  ],
  [
    'Responses',
    async (signal) => {
      const { data, response } = await openai.responses
        .create({ model: 'acme/acme-r', input: hello, stream: true }, { signal })
        .withResponse();
      return { requestId: response.headers.get('x-request-id'), events: data[Symbol.asyncIterator]() };
    },
  ],
  [
    'messages',
    async (signal) => {
      const { data, response } = await anthropic.messages
        .create(
          { model: 'acme/acme-m', max_tokens: 50, messages: [{ role: 'user', content: hello }], stream: true },
          { signal },
        )
        .withResponse();
      return { requestId: response.headers.get('x-request-id'), events: data[Symbol.asyncIterator]() };
    },
  ],
  [
    'generate-content',
    async (signal) => {
      const chunks = await google.models.generateContentStream({
        model: 'acme/acme-g',
        contents: hello,
        config: { abortSignal: signal },
      });
      const events = chunks[Symbol.asyncIterator]();
      const first = await events.next();
      const requestId = first.done ? null : (first.value.sdkHttpResponse?.headers?.['x-request-id'] ?? null);
      return { requestId, events };
    },
  ],
  [
    'chat on K2.7 (→ messages)',
    async (signal) => {
      const { data, response } = await openai.chat.completions
        .create({ model: 'alpha-k2.7-code', messages: [{ role: 'user', content: hello }], stream: true }, { signal })
        .withResponse();
      return { requestId: response.headers.get('x-request-id'), events: data[Symbol.asyncIterator]() };
    },
  ],
  [
    'Responses on a chat connection (→ chat)',
    async (signal) => {
      const { data, response } = await openai.responses
        .create({ model: 'acme/acme-1', input: hello, stream: true }, { signal })
        .withResponse();
      return { requestId: response.headers.get('x-request-id'), events: data[Symbol.asyncIterator]() };
    },
  ],
  [
    'messages on a chat connection (→ chat)',
    async (signal) => {
      const { data, response } = await anthropic.messages
        .create(
          { model: 'acme/acme-1', max_tokens: 50, messages: [{ role: 'user', content: hello }], stream: true },
          { signal },
        )
        .withResponse();
      return { requestId: response.headers.get('x-request-id'), events: data[Symbol.asyncIterator]() };
    },
  ],
];

describe('a client that cancels its stream (spec §4.5 rule 4)', () => {
  it.each(streams)('%s: the upstream request is aborted, and the reservation is the charge', async (_name, start) => {
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate, textChunks: ['a ', 'b ', 'c'] });
    gate.release(1);
    const controller = new AbortController();
    const { requestId, events } = await start(controller.signal);
    await events.next();
    controller.abort();
    expect((await upstream.waitForClientClose(0)).clientClosedEarly).toBe(true);
    expect(requestId).toBeTruthy();
    const record = await settledRecord(gateway.host.services, requestId!);
    expect(record).toMatchObject({ source: 'conservative', state: 'failed' });
    expect(record.charge).toBe(record.reserved);
  });
});
