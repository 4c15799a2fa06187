import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * Where a connection may point. The gateway runs here as on AWS (GATEWAY_PRIVATE_UPSTREAMS=marked-only, which the
 * stack's functions get by default): loopback and private addresses need a connection marked as reaching a private
 * network, metadata and link-local addresses are refused always, and the check applies to the addresses a name
 * resolves to when the call connects — `localhost` is stored as a name but never reached.
 */
let upstream: FakeUpstream;
let aws: TestGateway;
let oneMachine: TestGateway;
let key: string;
let oneMachineKey: string;
const port = () => new URL(upstream.url).port;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  [aws, oneMachine] = await Promise.all([
    startTestGateway({ environment: { GATEWAY_PRIVATE_UPSTREAMS: 'marked-only' } }),
    startTestGateway(),
  ]);
  ({ key } = await aws.admin.createMemberWithKey({ dailyTokens: 1_000_000 }));
  ({ key: oneMachineKey } = await oneMachine.admin.createMemberWithKey({ dailyTokens: 1_000_000 }));
});
afterAll(async () => {
  await Promise.all([aws?.close(), oneMachine?.close()]);
  await upstream?.close();
});
beforeEach(() => upstream.reset());

async function createConnection(gateway: TestGateway, body: Record<string, unknown>) {
  const response = await fetch(`${gateway.url}/admin/v1/connections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'addr', wire: 'openai-chat', apiKey: 'addr-credential-never-stored', ...body }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function secretFile(gateway: TestGateway): Promise<string> {
  const { secretStore } = gateway.host.services.config;
  if (secretStore.kind !== 'file') throw new Error('the local host keeps secrets in a file');
  return readFile(secretStore.path, 'utf8').catch(() => '');
}

async function chat(gateway: TestGateway, memberKey: string, model: string) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${memberKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: `addr/${model}`, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    requestId: response.headers.get('x-request-id') ?? '',
  };
}

describe('base URLs an administrator may store', () => {
  it.each([
    ['http://user:pass@api.example.com/v1', false],
    ['https://api.example.com/v1?key=SECRET', false],
    ['https://api.example.com/v1#fragment', false],
    ['ftp://api.example.com/v1', false],
    ['http://169.254.169.254/latest/meta-data', true],
    ['http://[fd00:ec2::254]/', true],
    ['http://[fe80::1]/v1', true],
    ['http://100.100.100.200/', true],
    ['http://metadata.google.internal/', true],
    ['http://127.0.0.1:8080/v1', false],
    ['http://10.1.2.3/v1', false],
  ])('refuses %s (marked private: %s) with 400 invalid_base_url, storing nothing', async (baseUrl, privateNetwork) => {
    const before = await aws.admin.call<{ connections: unknown[] }>('GET', '/connections');
    const answer = await createConnection(aws, { baseUrl, privateNetwork, models: ['refused'] });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'invalid_base_url' } });
    expect(await aws.admin.call('GET', '/connections')).toEqual(before);
    // Validated before the credential is stored, so no secret is left behind either.
    expect(await secretFile(aws)).not.toContain('addr-credential-never-stored');
  });

  it('refuses metadata addresses on the one-machine host too, where loopback is allowed', async () => {
    expect((await createConnection(oneMachine, { baseUrl: 'http://169.254.169.254/', models: ['m'] })).status).toBe(
      400,
    );
    expect((await createConnection(oneMachine, { baseUrl: `${upstream.url}/v1`, models: ['local'] })).status).toBe(201);
    expect((await chat(oneMachine, oneMachineKey, 'local')).status).toBe(200);
  });
});

describe('what a call connects to', () => {
  it('reaches a loopback upstream on AWS only through a connection marked as reaching a private network', async () => {
    const marked = await createConnection(aws, {
      baseUrl: `${upstream.url}/v1`,
      privateNetwork: true,
      models: ['marked'],
    });
    expect(marked.status).toBe(201);
    expect(marked.body).toMatchObject({ connection: { privateNetwork: true } });
    const answer = await chat(aws, key, 'marked');
    expect(answer.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it('stores `localhost` (a name) but refuses the call: its DNS answers are loopback', async () => {
    const created = await createConnection(aws, { baseUrl: `http://localhost:${port()}/v1`, models: ['by-name'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ connection: { privateNetwork: false } });
    const answer = await chat(aws, key, 'by-name');
    expect(answer.status).toBe(502);
    expect(answer.body).toMatchObject({ error: { code: 'upstream_address_refused' } });
    expect(upstream.requests).toEqual([]);
    expect(await settledRecord(aws.host.services, answer.requestId)).toMatchObject({
      status: 502,
      source: 'conservative',
    });
  });

  it('refuses the token count of such a connection the same way', async () => {
    await createConnection(aws, {
      wire: 'anthropic-messages',
      baseUrl: `http://localhost:${port()}/v1`,
      models: ['count-by-name'],
    });
    const response = await fetch(`${aws.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'addr/count-by-name', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: 'upstream_address_refused' } });
    expect(upstream.requests).toEqual([]);
  });
});
