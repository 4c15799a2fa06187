import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretNameForConnection } from '../../shared/config/gateway-services.ts';
import { logger } from '../../shared/observability/logger.ts';
import { runInProcess } from '../cli/cli-harness.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { type FixtureConnection, useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * `connection test ID` (POST /admin/v1/connections/{id}/test, and the CLI) against the fake upstream: it calls the
 * connection's model list (and, when asked, a one-token generation) the way traffic would — the stored base URL
 * and credential, the guarded transport — and reports each call's status, latency and what it showed, or why it
 * failed, as data with a code. The credential reaches the upstream only: never the answer, the CLI's output or the
 * logs, nor anything the upstream says about it.
 */
const credential = 'sk-canary-CREDENTIAL-4f1e9c2d7b';
const fixture = useGatewayFixture({
  // Short, so a test of an upstream that never answers ends quickly; on AWS the admin function allows 30 s.
  // `marked-only`, as on AWS: every connection to the fake upstream's loopback address is marked private.
  environment: { GATEWAY_UPSTREAM_TIMEOUT_MS: '400', GATEWAY_PRIVATE_UPSTREAMS: 'marked-only' },
  connections: (
    [
      { provider: 'openai', wire: 'openai-chat', path: '/v1', models: ['gpt-a', 'fake-model-a'] },
      { provider: 'openai', wire: 'openai-responses', path: '/v1', models: ['fake-model-b'] },
      { provider: 'anthropic', wire: 'anthropic-messages', path: '', models: ['claude-a', 'fake-model-a'] },
      { provider: 'google', wire: 'gemini', path: '', models: ['fake-model-b'] },
      // Catalog models: the connection declares none, and the test names them as the upstream knows them.
      { provider: 'alpha', wire: 'openai-chat', path: '/alpha/v1', upstream: 'alpha' },
    ] as const satisfies readonly FixtureConnection[]
  ).map((connection) => ({ ...connection, privateNetwork: true, apiKey: credential })),
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let ids: { chat: string; responses: string; messages: string; gemini: string; alpha: string };
const logged: string[] = [];
let restoreOutput: () => void;

interface Probe {
  call: string;
  method: string;
  url: string;
  model?: string;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  failure?: { code: string; reason: string };
  models?: { count: number; ids: string[]; more: boolean };
}
interface Report {
  connection: { id: string; wire: string; baseUrl: string };
  ok: boolean;
  probes: Probe[];
  notListedUpstream?: string[];
}

async function testConnection(id: string, body?: unknown): Promise<{ status: number; text: string; report: Report }> {
  const response = await fetch(`${gateway.url}/admin/v1/connections/${encodeURIComponent(id)}/test`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, report: JSON.parse(text) as Report };
}

async function createConnection(baseUrl: string, privateNetwork: boolean): Promise<string> {
  return gateway.admin.createConnection({
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl,
    models: ['m'],
    privateNetwork,
    apiKey: credential,
  });
}

/** A loopback port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  const [chat = '', responses = '', messages = '', gemini = '', alpha = ''] = fixture.connectionIds;
  ids = { chat, responses, messages, gemini, alpha };
  // Everything the gateway logs while these tests run, at the level a deployment logs at.
  logger.setLogLevel('INFO');
  const write = process.stdout.write.bind(process.stdout);
  const writeError = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    logged.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    logged.push(String(chunk));
    return writeError(chunk, ...rest);
  }) as typeof process.stderr.write;
  restoreOutput = () => {
    process.stdout.write = write;
    process.stderr.write = writeError;
    logger.setLogLevel('WARN');
  };
});

afterAll(() => {
  restoreOutput();
  // Every answer above and every CLI run is checked on its own; the logs of the whole file, here.
  const logs = logged.join('');
  expect(logs).toContain('connection tested');
  expect(logs).not.toContain(credential);
  expect(logs).not.toContain(credential.slice(-8));
});

describe('connection test: the model list of each wire', () => {
  const cases = [
    { wire: 'openai-chat', id: () => ids.chat, path: '/v1/models', header: 'authorization', notListed: ['gpt-a'] },
    { wire: 'openai-responses', id: () => ids.responses, path: '/v1/models', header: 'authorization', notListed: [] },
    {
      wire: 'anthropic-messages',
      id: () => ids.messages,
      path: '/v1/models',
      header: 'x-api-key',
      notListed: ['claude-a'],
    },
    { wire: 'gemini', id: () => ids.gemini, path: '/v1beta/models', header: 'x-goog-api-key', notListed: [] },
  ] as const;

  it.each(cases)(
    '$wire: GET $path with the credential in $header, reported with status, latency and models',
    async (row) => {
      const { wire, id, path, header, notListed } = row;
      const { status, text, report } = await testConnection(id());
      expect(status).toBe(200);
      expect(report).toMatchObject({ connection: { id: id(), wire }, ok: true, notListedUpstream: notListed });
      expect(report.probes).toEqual([
        {
          call: 'model-list',
          method: 'GET',
          url: `${upstream.url}${path}`,
          ok: true,
          status: 200,
          latencyMs: expect.any(Number),
          models: { count: 2, ids: ['fake-model-a', 'fake-model-b'], more: false },
        },
      ]);
      expect(report.probes[0]?.latencyMs).toBeGreaterThanOrEqual(0);
      const [sent] = upstream.requests;
      expect(sent).toMatchObject({ method: 'GET', path, wire: wire === 'openai-responses' ? 'openai-chat' : wire });
      expect(sent?.headers[header]).toBe(header === 'authorization' ? `Bearer ${credential}` : credential);
      expect(upstream.requests).toHaveLength(1);
      expect(text).not.toContain(credential);
    },
  );

  it('compares a catalog connection’s models by the names the upstream knows them by', async () => {
    upstream.setModels(['k3']);
    const { report } = await testConnection(ids.alpha);
    expect(upstream.requests[0]?.path).toBe('/alpha/v1/models');
    expect(report.notListedUpstream).toEqual(['k3-256k']);
  });

  it('leaves out model ids that hold the credential or look like any credential', async () => {
    upstream.setModels(['fake-model-a', `leak-${credential}`, 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW']);
    const { text, report } = await testConnection(ids.chat);
    expect(report.probes[0]?.models).toEqual({ count: 3, ids: ['fake-model-a'], more: false });
    expect(text).not.toContain(credential);
  });
});

describe('connection test: a one-token generation when asked', () => {
  it.each([
    { wire: 'openai-chat', id: () => ids.chat, path: '/v1/chat/completions', body: { model: 'gpt-a', max_tokens: 1 } },
    {
      wire: 'openai-responses',
      id: () => ids.responses,
      path: '/v1/responses',
      body: { model: 'fake-model-b', max_output_tokens: 16 },
    },
    {
      wire: 'anthropic-messages',
      id: () => ids.messages,
      path: '/v1/messages',
      body: { model: 'claude-a', max_tokens: 1 },
    },
    {
      wire: 'gemini',
      id: () => ids.gemini,
      path: '/v1beta/models/fake-model-b:generateContent',
      body: { generationConfig: { maxOutputTokens: 1 } },
    },
  ] as const)('$wire: POST $path with the first model', async ({ id, path, body }) => {
    const { report } = await testConnection(id(), { generate: true });
    expect(report.ok).toBe(true);
    expect(report.probes.map((probe) => [probe.call, probe.status])).toEqual([
      ['model-list', 200],
      ['generation', 200],
    ]);
    expect(report.probes[1]).toMatchObject({ method: 'POST', url: `${upstream.url}${path}` });
    expect(upstream.requests[1]).toMatchObject({ method: 'POST', path, json: body });
  });

  it('asks the model named, by the name the upstream knows it by', async () => {
    const { report } = await testConnection(ids.alpha, { generate: true, model: 'alpha-k3-256k' });
    expect(report.probes[1]).toMatchObject({ call: 'generation', model: 'k3-256k', status: 200 });
    expect(upstream.requests[1]?.json).toMatchObject({ model: 'k3-256k', max_tokens: 1 });
  });

  it('refuses a model the connection does not serve, and a malformed body, with 400 before calling', async () => {
    const unknown = await testConnection(ids.chat, { generate: true, model: 'not-served' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text).error.message).toBe('The connection does not serve the model "not-served".');
    const malformed = await testConnection(ids.chat, { generate: 'yes' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('invalid_request');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('connection test: failures are data, with a reason and a code', () => {
  it('says the upstream refused the credential, in its own words, never the upstream’s', async () => {
    const quoted = `Incorrect API key provided: ${credential.slice(0, 6)}****${credential.slice(-4)}`;
    upstream.nextResponse({ type: 'error', status: 401, message: quoted });
    const { status, text, report } = await testConnection(ids.chat);
    expect(status).toBe(200);
    expect(report.ok).toBe(false);
    expect(report.probes[0]).toMatchObject({
      ok: false,
      status: 401,
      failure: { code: 'upstream_status', reason: expect.stringContaining('refused the credential (401)') },
    });
    expect(report.notListedUpstream).toBeUndefined();
    expect(text).not.toContain('Incorrect API key');
    expect(text).not.toContain(credential.slice(-4));
  });

  it.each([
    [404, 'check the base URL'],
    [429, 'rate limit or quota'],
    [503, 'The upstream failed (503)'],
  ])('reports a %i from the upstream', async (answered, reason) => {
    upstream.nextResponse({ type: 'error', status: answered });
    const { report } = await testConnection(ids.messages);
    expect(report.probes[0]).toMatchObject({ status: answered, failure: { reason: expect.stringContaining(reason) } });
  });

  it('says so when a 200 is not a model list', async () => {
    upstream.nextResponse({ type: 'error', status: 200, body: { hello: 'world' } });
    const { report } = await testConnection(ids.chat);
    expect(report.probes[0]).toMatchObject({ ok: false, status: 200, failure: { code: 'upstream_invalid_response' } });
  });

  it('times out an upstream that never answers, and closes the call', async () => {
    upstream.nextResponse({ type: 'hang' });
    const { report } = await testConnection(ids.responses);
    expect(report.probes[0]).toMatchObject({ ok: false, status: null, failure: { code: 'upstream_timeout' } });
    await upstream.waitForClientClose(0);
  });

  it('refuses a redirect without following it', async () => {
    upstream.nextResponse({ type: 'error', status: 302, headers: { location: `${upstream.url}/elsewhere/models` } });
    const { report } = await testConnection(ids.chat);
    expect(report.probes[0]).toMatchObject({ status: null, failure: { code: 'upstream_redirect_refused' } });
    expect(upstream.requests).toHaveLength(1);
  });

  it('says a connection cannot be reached, with the system’s reason', async () => {
    const id = await createConnection(`http://127.0.0.1:${await closedPort()}/v1`, true);
    const { report } = await testConnection(id);
    expect(report.probes[0]).toMatchObject({
      status: null,
      failure: { code: 'upstream_unreachable', reason: expect.stringContaining('ECONNREFUSED') },
    });
  });

  it('refuses an address the connection may not reach, as traffic would be refused, sending nothing', async () => {
    // `localhost` passes as text; it resolves to loopback when the call connects, and the connection is not marked.
    const id = await createConnection(`http://localhost:${new URL(upstream.url).port}/v1`, false);
    const { report } = await testConnection(id);
    expect(report.probes[0]).toMatchObject({ status: null, failure: { code: 'upstream_address_refused' } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('says when the credential cannot be read, calling nothing', async () => {
    const id = await createConnection(`${upstream.url}/v1`, true);
    await gateway.host.services.secrets.remove(secretNameForConnection(gateway.host.services.config, id));
    const { status, report } = await testConnection(id);
    expect(status).toBe(200);
    expect(report.probes[0]).toMatchObject({ ok: false, failure: { code: 'credential_unavailable' } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 404 for a connection that does not exist, and 400 for a path that names no id', async () => {
    const missing = await testConnection('con_missing');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('connection_not_found');
    const malformed = await fetch(`${gateway.url}/admin/v1/connections/%ZZ/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.adminKey}` },
    });
    expect(malformed.status).toBe(400);
  });
});

describe('connection test from the CLI', () => {
  const cli = (argv: string[]) =>
    runInProcess(argv, {
      env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
      fetch: globalThis.fetch,
    });

  it('prints the calls as a table, and the answer as JSON with --json; exit 0 when they worked', async () => {
    const table = await cli(['connection', 'test', ids.messages, '--generate']);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe(`connection ${ids.messages} (anthropic, anthropic-messages) at ${upstream.url}`);
    expect(lines[1]).toMatch(/^CALL\s+URL\s+STATUS\s+LATENCY\s+RESULT$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^model-list\\s+GET ${upstream.url}/v1/models\\s+200\\s+\\d+ ms\\s+ok: 2 models \\(fake-model-a, fake-model-b\\)$`,
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(`^generation claude-a\\s+POST ${upstream.url}/v1/messages\\s+200\\s+\\d+ ms\\s+ok$`),
    );
    expect(table.stdout).toContain("not in the upstream's model list: claude-a\n");
    expect(table.stdout.endsWith('the connection works\n')).toBe(true);

    const json = await cli(['connection', 'test', ids.messages, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, probes: [{ call: 'model-list', status: 200 }] });
    for (const run of [table, json]) expect(run.stdout + run.stderr).not.toContain(credential);
  });

  it('exits 1 when a call failed, printing why', async () => {
    upstream.nextResponse({ type: 'error', status: 401, message: `bad key ${credential}` });
    const run = await cli(['connection', 'test', ids.gemini]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/401\s+\d+ ms\s+upstream_status: The upstream refused the credential \(401\)/);
    expect(run.stdout.endsWith('the connection test failed\n')).toBe(true);
    expect(run.stdout + run.stderr).not.toContain(credential);
  });

  it('exits 1 with the gateway’s message for a connection that does not exist', async () => {
    const run = await cli(['connection', 'test', 'con_missing']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('connection_not_found');
  });
});
