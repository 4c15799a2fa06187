import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { refusal } from '../support/openai-refusal.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

const routed = (path: string, models: string[], upstream = 'lb', provider = 'openai') => ({
  provider,
  wire: 'openai-chat' as const,
  path: `/${path}/v1`,
  models,
  upstream,
});
const fixture = useGatewayFixture({
  environment: { GATEWAY_UPSTREAM_TIMEOUT_MS: '1000' },
  connections: [
    routed('first', ['rotated-model']),
    routed('second', ['rotated-model']),
    routed('disabled', ['rotated-model']),
    routed('lb-route', ['routed-model']),
    routed('lb2-route', ['routed-model'], 'lb2'),
    routed('shared-a', ['shared-name'], 'lb', 'provider-a'),
    routed('shared-b', ['shared-name'], 'lb', 'provider-b'),
    { provider: 'down', wire: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', models: ['unreachable-model'] },
  ],
  member: {},
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let key: string;

beforeAll(async () => {
  ({ upstream, gateway } = fixture);
  await gateway.admin.call('POST', `/connections/${fixture.connectionIds[2]}/disable`);
  ({ key } = fixture.member);
  client = openaiClient(gateway, key);
});

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('routing (spec §4.3)', () => {
  it('rotates over enabled connections and never calls a disabled one', async () => {
    for (let request = 0; request < 6; request++) {
      await client.chat.completions.create({ model: 'rotated-model', messages });
    }
    const paths = upstream.requests.map((request) => request.path.split('/')[1]);
    expect(paths.filter((path) => path === 'first')).toHaveLength(3);
    expect(paths.filter((path) => path === 'second')).toHaveLength(3);
    expect(paths).not.toContain('disabled');
    for (let index = 1; index < paths.length; index++) expect(paths[index]).not.toBe(paths[index - 1]);
  });

  it('serves provider/model only from that provider`s connections, never another provider`s (rule 7)', async () => {
    // provider-b has a connection for the same model name on the same upstream: it must never be chosen.
    for (let request = 0; request < 4; request++) {
      await client.chat.completions.create({ model: 'provider-a/shared-name', messages });
    }
    expect(upstream.requests.map((request) => request.path)).toEqual(Array(4).fill('/shared-a/v1/chat/completions'));
    for (let request = 0; request < 4; request++) {
      await client.chat.completions.create({ model: 'provider-b/shared-name', messages });
    }
    expect(upstream.requests.slice(4).map((request) => request.path)).toEqual(
      Array(4).fill('/shared-b/v1/chat/completions'),
    );
  });

  it('chooses the upstream by model prefix, path prefix or header, with lb the default', async () => {
    await client.chat.completions.create({ model: 'routed-model', messages });
    await client.chat.completions.create({ model: 'lb2/routed-model', messages });
    const viaPath = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/lb2/v1`, maxRetries: 0 });
    await viaPath.chat.completions.create({ model: 'routed-model', messages });
    await client.chat.completions.create(
      { model: 'routed-model', messages },
      { headers: { 'x-gateway-upstream': 'lb2' } },
    );
    expect(upstream.requests.map((request) => request.path.split('/')[1])).toEqual([
      'lb-route',
      'lb2-route',
      'lb2-route',
      'lb2-route',
    ]);
    expect(upstream.requests[1]?.json).toMatchObject({ model: 'routed-model' });
  });

  it('refuses conflicting upstream choices, ambiguous bare names and unknown models', async () => {
    expect(
      await refusal(
        client.chat.completions.create(
          { model: 'lb/routed-model', messages },
          { headers: { 'x-gateway-upstream': 'lb2' } },
        ),
      ),
    ).toEqual({ status: 400, code: 'conflicting_upstream' });
    expect(await refusal(client.chat.completions.create({ model: 'shared-name', messages }))).toEqual({
      status: 400,
      code: 'ambiguous_model',
    });
    await expect(client.chat.completions.create({ model: 'provider-a/shared-name', messages })).resolves.toBeDefined();
    expect(await refusal(client.chat.completions.create({ model: 'no-such-model', messages }))).toEqual({
      status: 404,
      code: 'unknown_model',
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it('refuses a body over 2,097,152 bytes with 413 without calling the upstream', async () => {
    const huge = 'x'.repeat(2_097_152);
    expect(
      await refusal(
        client.chat.completions.create({ model: 'routed-model', messages: [{ role: 'user', content: huge }] }),
      ),
    ).toEqual({
      status: 413,
      code: 'request_too_large',
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses invalid bodies with 400 and a code', async () => {
    const post = (body: string) =>
      fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
    for (const body of ['{', '[]', '{"model":"routed-model"}', '{"model":5,"messages":[]}']) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toMatch(/^invalid_/);
    }
  });

  it('refuses WebSocket upgrades, the handshake (a GET) and a POST alike, with 400 websocket_refused', async () => {
    // fetch cannot send an upgrade request, so this speaks HTTP through node:http as a WebSocket client does.
    const upgrade = (method: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(`${gateway.baseURL}/chat/completions`);
        const outgoing = httpRequest({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method,
          headers: {
            authorization: `Bearer ${key}`,
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-version': '13',
          },
        });
        outgoing.on('upgrade', () => reject(new Error('the gateway accepted a WebSocket')));
        outgoing.on('response', (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    for (const method of ['GET', 'POST']) {
      const answer = await upgrade(method);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'websocket_refused' } });
    }
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('upstream failures (spec §7)', () => {
  it('preserves the status of an upstream error', async () => {
    upstream.nextResponse({ type: 'error', status: 429, message: 'slow down' });
    const error = await refusal(client.chat.completions.create({ model: 'routed-model', messages }));
    expect(error.status).toBe(429);
    upstream.nextResponse({ type: 'error', status: 400, message: 'bad thing' });
    expect((await refusal(client.chat.completions.create({ model: 'routed-model', messages }))).status).toBe(400);
  });

  it('answers 502 when the upstream cannot be reached and 504 when it does not answer in time', async () => {
    expect(await refusal(client.chat.completions.create({ model: 'unreachable-model', messages }))).toEqual({
      status: 502,
      code: 'upstream_unreachable',
    });
    upstream.nextResponse({ type: 'hang' });
    // refusal() accepts only the SDK's APIError: a hang, a reset or any other outcome fails the test.
    expect(await refusal(client.chat.completions.create({ model: 'routed-model', messages }))).toEqual({
      status: 504,
      code: 'upstream_timeout',
    });
    const closed = await upstream.waitForClientClose(0);
    expect(closed.clientClosedEarly).toBe(true);
    expect(upstream.requests).toHaveLength(1);
  });

  it('records a 504 with the reservation as the charge', async () => {
    upstream.nextResponse({ type: 'hang' });
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'routed-model', messages }),
    });
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: { code: 'upstream_timeout' } });
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ status: 504, state: 'failed', source: 'conservative' });
    expect(record.state === 'failed' && record.charge).toBe(record.reserved);
    expect(record.reserved).toBeGreaterThan(0);
  });
});
