import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../shared/store/store-errors.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * Bad input never gets a 500: each case below answered one (the first with an empty body) and now answers a 4xx
 * JSON error with a code. A connection that cannot be stored leaves no credential behind.
 */
const fixture = useGatewayFixture();
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});
afterEach(() => vi.restoreAllMocks());

async function admin(method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function secretFile(): Promise<string> {
  const { secretStore } = gateway.host.services.config;
  if (secretStore.kind !== 'file') throw new Error('the local host keeps secrets in a file');
  return readFile(secretStore.path, 'utf8').catch(() => '');
}

/** Writes a request byte for byte and returns the whole answer as text. */
function exchangeRaw(bytes: string): Promise<string> {
  const url = new URL(gateway.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.end(bytes);
  });
}

const longModelIds = Array.from({ length: 3_000 }, (_, index) => `model-${index}-${'y'.repeat(200)}`);

describe('no 500 for bad input', () => {
  it.each(['bad host', 'a/b', 'x@y', '[::1', 'host:port', `${'a'.repeat(64)}.example`])(
    'a Host header of %j: 400 invalid_host, as JSON',
    async (host) => {
      const answer = await exchangeRaw(`GET /v1/models HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('"code":"invalid_host"');
    },
  );

  it('a valid Host header, and none at all under HTTP/1.0, are fine', async () => {
    for (const request of [
      'GET /v1/models HTTP/1.1\r\nHost: gateway.example:8787\r\nConnection: close\r\n\r\n',
      'GET /v1/models HTTP/1.1\r\nHost: [::1]:8787\r\nConnection: close\r\n\r\n',
      'GET /v1/models HTTP/1.0\r\n\r\n',
    ]) {
      // No key: the answer is the gateway's own 401, so the request got all the way to authentication.
      expect(await exchangeRaw(request)).toMatch(/^HTTP\/1\.[01] 401 [\s\S]*"code":"missing_key"/);
    }
  });

  it.each([
    ['/admin/v1/keys/%E0%A4%A/revoke', 'invalid_path'],
    ['/admin/v1/members/%ZZ/disable', 'invalid_path'],
    [`/admin/v1/keys/${'k'.repeat(3_000)}/revoke`, 'invalid_path'],
    [`/admin/v1/members/${'m'.repeat(3_000)}/disable`, 'invalid_path'],
    [`/admin/v1/connections/${'c'.repeat(3_000)}/enable`, 'invalid_path'],
    ['/admin/v1/holders/%C3%28/keys', 'invalid_path'],
  ])('POST %s: 400 %s', async (path, code) => {
    const answer = await admin('POST', path);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code } });
  });

  it('a key for a member id far too long to be one: 400 invalid_request', async () => {
    const answer = await admin('POST', '/admin/v1/keys', { memberId: 'm'.repeat(3_000) });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('a member whose policy lists 3,000 long model ids: 400 invalid_request, nothing stored', async () => {
    const before = await admin('GET', '/admin/v1/members');
    const answer = await admin('POST', '/admin/v1/members', {
      name: 'too many models',
      policy: { models: longModelIds.map((id) => `p/${id}`) },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'invalid_request' } });
    expect(await admin('GET', '/admin/v1/members')).toEqual(before);
  });

  it('a connection declaring 3,000 long model ids: 400 invalid_request, and no credential stored', async () => {
    const before = await admin('GET', '/admin/v1/connections');
    const answer = await admin('POST', '/admin/v1/connections', {
      provider: 'many',
      wire: 'openai-chat',
      baseUrl: 'https://api.example.com/v1',
      models: longModelIds,
      apiKey: 'credential-of-a-refused-connection',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'invalid_request' } });
    expect(await admin('GET', '/admin/v1/connections')).toEqual(before);
    expect(await secretFile()).not.toContain('credential-of-a-refused-connection');
  });

  it('a connection the store fails to keep after its credential was stored: the credential is deleted again', async () => {
    // The store refuses the connection itself (as a throttled or locked store would), after the secret was written.
    vi.spyOn(gateway.host.services.store.connections, 'create').mockRejectedValueOnce(
      new StoreUnavailableError('the store is busy'),
    );
    const answer = await admin('POST', '/admin/v1/connections', {
      provider: 'orphan',
      wire: 'openai-chat',
      baseUrl: 'https://api.example.com/v1',
      models: ['m'],
      apiKey: 'credential-that-must-not-stay-orphaned',
    });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: { code: 'store_unavailable' } });
    expect(await secretFile()).not.toContain('credential-that-must-not-stay-orphaned');
    vi.restoreAllMocks();
    expect(JSON.stringify(await admin('GET', '/admin/v1/connections'))).not.toContain('orphan');
  });
});
