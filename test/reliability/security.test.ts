import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteDatabasePath } from '../../infra/local/open-local-store.ts';
import { generateKeySecret, hashKeySecret } from '../../shared/auth/key-secret.ts';
import { routeTable } from '../../shared/http/route-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { samplePath } from '../support/route-samples.ts';
import { AdminClient } from '../support/test-gateway.ts';
import { errorCodeOf } from './support/send-request.ts';

/**
 * The gateway as `npm start` runs it, in its own process with every log level on, so that what it prints is
 * exactly what an operator's log would hold. A canary string goes into prompts, system text, tool definitions,
 * tool-call arguments, tool results and model names, and the fake upstream echoes it into answers, tool calls
 * and an error body. Afterwards the canary, the keys and the provider credentials must be absent from every
 * table of the store, from the logs, and from every usage and admin API answer.
 */
const canaryId = randomUUID();
const canary = `CANARY-${canaryId}`;
/**
 * Streams cut text into pieces (tool-call arguments arrive in thirds), so a leak may hold only part of the
 * canary: its first and last runs of hex digits are recognised on their own.
 */
const canaryParts = [canary, canaryId.slice(0, 8), canaryId.slice(-12)];
const holdsCanary = (text: string) => canaryParts.some((part) => text.includes(part));
const credentials = {
  chat: `provider-credential-${randomUUID()}`,
  responses: `provider-credential-${randomUUID()}`,
  messages: `provider-credential-${randomUUID()}`,
  gemini: `provider-credential-${randomUUID()}`,
};
const adminKey = generateKeySecret('gw');

let upstream: FakeUpstream;
let dataDir: string;
let host: ChildProcess;
let url: string;
let output = '';
let memberKey: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-security-'));
  host = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: dataDir,
      // The default engine, whatever this run's: the test reads its database file afterwards.
      GATEWAY_STORE: 'sqlite',
      GATEWAY_ADMIN_KEY: adminKey,
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  host.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  host.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the host did not start:\n${output}`)), 30_000);
    const look = () => {
      const match = /Gateway listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    host.stdout?.on('data', look);
    host.once('exit', (code) => reject(new Error(`the host exited with ${code}:\n${output}`)));
  });
  const admin = new AdminClient(url, adminKey);
  await admin.createConnection({
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['sec-chat'],
    apiKey: credentials.chat,
  });
  await admin.createConnection({
    provider: 'openai',
    wire: 'openai-responses',
    baseUrl: `${upstream.url}/v1`,
    models: ['sec-responses'],
    apiKey: credentials.responses,
  });
  await admin.createConnection({
    provider: 'anthropic',
    wire: 'anthropic-messages',
    baseUrl: `${upstream.url}/v1`,
    models: ['sec-messages'],
    apiKey: credentials.messages,
  });
  await admin.createConnection({
    provider: 'google',
    wire: 'gemini',
    baseUrl: `${upstream.url}/v1beta`,
    models: ['sec-gemini'],
    apiKey: credentials.gemini,
  });
  ({ key: memberKey } = await admin.createMemberWithKey({ dailyTokens: 10_000_000 }));
}, 60_000);

afterAll(async () => {
  if (host && host.exitCode === null) {
    host.kill('SIGKILL');
    await once(host, 'exit');
  }
  await upstream?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(path: string, body: unknown, key = memberKey): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text };
}

const tool = {
  type: 'function',
  function: {
    name: 'lookup',
    description: `finds ${canary}`,
    parameters: { type: 'object', properties: { input: { type: 'string' } } },
  },
};

describe('secrets and content stay out of the store, the logs and the APIs', () => {
  it('relays the canary through every wire, in prompts, tools, tool calls and answers', async () => {
    const chatMessages = [
      { role: 'system', content: `system ${canary}` },
      { role: 'user', content: `first ${canary}` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: `{"q":"${canary}"}` } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: `result ${canary}` },
      { role: 'user', content: `again ${canary}` },
    ];
    for (const stream of [false, true]) {
      // With tools on offer the fake calls one, its arguments echoing the last user turn.
      expect(
        (
          await call('/v1/chat/completions', {
            model: 'openai/sec-chat',
            messages: chatMessages,
            tools: [tool],
            stream,
          })
        ).text,
      ).toSatisfy(holdsCanary);
      expect(
        (await call('/v1/chat/completions', { model: 'openai/sec-chat', messages: chatMessages, stream })).text,
      ).toSatisfy(holdsCanary);
      expect(
        (
          await call('/v1/responses', {
            model: 'openai/sec-responses',
            input: [{ role: 'user', content: `tell ${canary}` }],
            stream,
          })
        ).text,
      ).toSatisfy(holdsCanary);
      expect(
        (
          await call('/v1/messages', {
            model: 'anthropic/sec-messages',
            max_tokens: 64,
            system: `system ${canary}`,
            messages: [
              { role: 'user', content: `first ${canary}` },
              { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'lookup', input: { q: canary } }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: `result ${canary}` }] },
              { role: 'user', content: `again ${canary}` },
            ],
            stream,
          })
        ).text,
      ).toSatisfy(holdsCanary);
      const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      expect(
        (
          await call(`/v1beta/models/google/sec-gemini:${method}`, {
            contents: [{ role: 'user', parts: [{ text: `tell ${canary}` }] }],
          })
        ).text,
      ).toSatisfy(holdsCanary);
    }
    expect(
      (
        await call('/v1/messages/count_tokens', {
          model: 'anthropic/sec-messages',
          messages: [{ role: 'user', content: canary }],
        })
      ).status,
    ).toBe(200);
    // Refusals that quote the client's own input back to it must not carry it anywhere else.
    expect((await call('/v1/chat/completions', { model: `openai/${canary}`, messages: chatMessages })).status).toBe(
      404,
    );
    expect((await call('/v1/chat/completions', { model: 'openai/sec-chat', messages: canary })).status).toBe(400);
    // An upstream error whose body holds the canary: relayed to the client, never logged or stored.
    upstream.nextResponse({ type: 'error', status: 500, message: `upstream failed on ${canary}` });
    const failed = await call('/v1/chat/completions', { model: 'openai/sec-chat', messages: chatMessages });
    expect(failed.status).toBe(500);
    expect(failed.text).toContain(canary);
    // The provider credential reached the provider, so its absence elsewhere below means something.
    expect(upstream.requests.some((request) => JSON.stringify(request.headers).includes(credentials.chat))).toBe(true);
  });

  it('never lets a credential in the query string authenticate, on any route', async () => {
    const parameters = ['key', 'api_key', 'KEY', 'access_token', 'x-api-key', 'token'];
    for (const route of routeTable) {
      const base = samplePath(route, 'google/sec-gemini');
      for (const parameter of parameters) {
        for (const withHeader of [false, true]) {
          const response = await fetch(`${url}${base}?${parameter}=${encodeURIComponent(adminKey)}`, {
            method: route.method,
            headers: {
              'content-type': 'application/json',
              ...(withHeader ? { authorization: `Bearer ${memberKey}` } : {}),
            },
            ...(route.method === 'POST' ? { body: '{}' } : {}),
          });
          const body = (await response.json()) as unknown;
          expect(response.status, `${route.method} ${base}?${parameter}`).toBe(400);
          expect(errorCodeOf(body), `${route.method} ${base}?${parameter}`).toBe('query_credentials_refused');
        }
      }
    }
  });

  it('finds keys by the SHA-256 of the whole secret: a near miss is just an unknown key', async () => {
    // The store is asked for `secret#<sha256>`; no code compares secret bytes, so no timing side channel exists
    // to guard. A key that differs in its last character hashes to an unrelated value and is refused as unknown.
    const nearMiss = `${memberKey.slice(0, -1)}${memberKey.endsWith('A') ? 'B' : 'A'}`;
    const response = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${nearMiss}` } });
    expect(response.status).toBe(401);
    expect(errorCodeOf(await response.json())).toBe('invalid_key');
  });

  it('keeps the canary, the keys and the credentials out of every usage and admin API answer', async () => {
    const reads: string[] = [];
    const usageRoute = routeTable.find((route) => route.functionId === 'usage');
    if (usageRoute) {
      for (const key of [memberKey, adminKey]) {
        for (const path of ['summary', 'requests', 'export.csv', 'keys']) {
          const response = await fetch(`${url}${usageRoute.path}v1/${path}?period=today&scope=team`, {
            headers: { authorization: `Bearer ${key}` },
          });
          reads.push(await response.text());
          expect(response.status, path).toBeLessThan(500);
        }
      }
      // The usage view did see this member's requests, so an absent canary is not an empty answer.
      expect(reads.join('\n')).toContain('sec-chat');
    }
    for (const path of ['/admin/v1/members', '/admin/v1/keys', '/admin/v1/connections']) {
      const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(response.status).toBe(200);
      reads.push(await response.text());
    }
    expectNoSecret(reads.join('\n'), 'API answers');
  });

  it('stores only hashes and metadata, logs none of it, and keeps credentials in the 0600 secret file', async () => {
    host.kill('SIGINT');
    const [code] = await once(host, 'exit');
    expect(code).toBe(0);
    // Structured logs were written (the settlement of each request, at least), so their silence is not emptiness.
    expect(output).toMatch(/"level":"(DEBUG|INFO|WARN|ERROR)"/);
    expectNoSecret(output, 'host logs');

    // The default engine's database, every row of every table, and its files byte for byte.
    const databasePath = sqliteDatabasePath(dataDir);
    const database = new Database(databasePath, { readonly: true });
    try {
      const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
        name: string;
      }[];
      expect(tables.length).toBeGreaterThanOrEqual(10);
      const rows = tables.flatMap(({ name }) => database.prepare(`SELECT * FROM "${name}"`).all() as object[]);
      expect(rows.length).toBeGreaterThan(20);
      expectNoSecret(JSON.stringify(rows), 'store');
      const lookups = database.prepare('SELECT secret_hash FROM key_secrets').pluck().all();
      expect(lookups).toContain(hashKeySecret(memberKey));
      expect(lookups).toContain(hashKeySecret(adminKey));
    } finally {
      database.close();
    }
    const files = await Promise.all(
      [databasePath, `${databasePath}-wal`].map((file) => readFile(file, 'latin1').catch(() => '')),
    );
    expectNoSecret(files.join('\n'), 'store files');

    const secretFile = join(dataDir, 'secrets.json');
    expect((await stat(secretFile)).mode & 0o777).toBe(0o600);
    const secrets = await readFile(secretFile, 'utf8');
    for (const credential of Object.values(credentials)) expect(secrets).toContain(credential);
    expect(holdsCanary(secrets)).toBe(false);
    expect(secrets).not.toContain(memberKey);
  });
});

function expectNoSecret(text: string, where: string): void {
  expect(holdsCanary(text), `${where} hold the canary`).toBe(false);
  expect(text.includes(memberKey), `${where} hold the member's key`).toBe(false);
  expect(text.includes(adminKey), `${where} hold the administrator's key`).toBe(false);
  for (const credential of Object.values(credentials)) {
    expect(text.includes(credential), `${where} hold a provider credential`).toBe(false);
  }
  // The random part of a key alone is as good as the key.
  expect(text.includes(memberKey.slice('sk-gw-'.length)), `${where} hold the secret part of the key`).toBe(false);
}
