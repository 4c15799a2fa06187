import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * No redirect is followed on any upstream call. A provider (or whatever answers at a connection's address) that
 * answers 3xx must not make the gateway send the connection's credential, or the client's body, to the host the
 * redirect names, nor relay that host's answer: the 3xx is a 502 of its own. A second loopback server stands in
 * for the redirect target and records whether anything reached it.
 */
const fixture = useGatewayFixture({
  connections: (
    [
      ['openai', 'openai-chat', 'redirect-chat', '/v1'],
      ['openai', 'openai-responses', 'redirect-responses', '/v1'],
      ['anthropic', 'anthropic-messages', 'redirect-messages', '/v1'],
      ['google', 'gemini', 'redirect-gemini', '/v1beta'],
    ] as const
  ).map(([provider, wire, model, path]) => ({
    provider,
    wire,
    path,
    models: [model],
    apiKey: 'credential-that-must-stay-home',
  })),
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let key: string;
let target: Server;
let targetUrl: string;
const targetHits: { method: string; url: string; headers: Record<string, unknown> }[] = [];

beforeAll(async () => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
  target = createServer((request, response) => {
    targetHits.push({ method: request.method ?? '', url: request.url ?? '', headers: { ...request.headers } });
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"stolen":true}');
  });
  target.listen(0, '127.0.0.1');
  await once(target, 'listening');
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(() => {
  target?.close();
});
beforeEach(() => {
  targetHits.length = 0;
});

const calls = [
  {
    name: 'chat completions',
    path: '/v1/chat/completions',
    body: { model: 'openai/redirect-chat', messages: [{ role: 'user', content: 'hi' }] },
  },
  {
    name: 'streamed chat completions',
    path: '/v1/chat/completions',
    body: { model: 'openai/redirect-chat', messages: [{ role: 'user', content: 'hi' }], stream: true },
  },
  { name: 'responses', path: '/v1/responses', body: { model: 'openai/redirect-responses', input: 'hi' } },
  {
    name: 'messages',
    path: '/v1/messages',
    body: { model: 'anthropic/redirect-messages', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  },
  {
    name: 'a token count',
    path: '/v1/messages/count_tokens',
    body: { model: 'anthropic/redirect-messages', messages: [{ role: 'user', content: 'hi' }] },
  },
  {
    name: 'generate-content',
    path: '/v1beta/models/google/redirect-gemini:generateContent',
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  },
  {
    name: 'streamed generate-content',
    path: '/v1beta/models/google/redirect-gemini:streamGenerateContent?alt=sse',
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  },
  {
    name: 'a generate-content token count',
    path: '/v1beta/models/google/redirect-gemini:countTokens',
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  },
  {
    name: 'streamed responses',
    path: '/v1/responses',
    body: { model: 'openai/redirect-responses', input: 'hi', stream: true },
  },
] as const;

async function call(path: string, body: unknown): Promise<{ status: number; json: unknown; requestId: string | null }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: JSON.parse(text) as unknown,
    requestId: response.headers.get('x-request-id'),
  };
}

describe('upstream redirects are never followed', () => {
  it.each(calls.flatMap((entry) => [307, 302, 308, 301].map((status) => ({ ...entry, status }))))(
    '$name answered $status: 502 upstream_redirect_refused, and the target receives nothing',
    async ({ path, body, status }) => {
      upstream.nextResponse({
        type: 'error',
        status,
        message: 'moved',
        headers: { location: `${targetUrl}${path}` },
      });
      const answer = await call(path, body);
      expect(answer.status).toBe(502);
      expect(JSON.stringify(answer.json)).toContain('upstream_redirect_refused');
      expect(JSON.stringify(answer.json)).not.toContain('stolen');
      expect(upstream.requests).toHaveLength(1);
      expect(targetHits).toEqual([]);
    },
  );

  it('settles a redirected inference conservatively, as any failed upstream call', async () => {
    upstream.nextResponse({ type: 'error', status: 307, headers: { location: `${targetUrl}/v1/chat/completions` } });
    const answer = await call('/v1/chat/completions', calls[0].body);
    expect(answer.status).toBe(502);
    const record = await settledRecord(gateway.host.services, answer.requestId ?? '');
    expect(record).toMatchObject({ status: 502, state: 'failed', source: 'conservative' });
    expect(targetHits).toEqual([]);
  });
});
