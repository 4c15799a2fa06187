import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, testAdminKey } from './cli-harness.ts';
import { type StubAdminServer, startStubAdminServer } from './stub-admin-server.ts';

let stub: StubAdminServer;

beforeAll(async () => {
  stub = await startStubAdminServer();
});
afterAll(async () => {
  await stub.close();
});
beforeEach(() => {
  stub.requests.length = 0;
});

function runAgainstStub(argv: readonly string[], stdin?: string) {
  return runInProcess(argv, { env: { GATEWAY_ADMIN_KEY: testAdminKey, GATEWAY_URL: stub.url }, fetch, stdin });
}

interface ExpectedRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
}

const requestCases: readonly (readonly [argv: readonly string[], expected: ExpectedRequest])[] = [
  [['member', 'create', '--name', 'alice'], { method: 'POST', path: '/admin/v1/members', body: { name: 'alice' } }],
  [
    [
      'member',
      'create',
      '--name',
      'alice',
      '--role',
      'admin',
      '--daily-tokens',
      '0',
      '--rpm',
      '60',
      '--concurrency',
      '2',
      '--max-output',
      '8192',
      '--providers',
      'alpha, beta',
      '--models',
      'alpha/alpha-1,beta/org/beta-4',
      '--models',
      'alpha/alpha-2',
    ],
    {
      method: 'POST',
      path: '/admin/v1/members',
      body: {
        name: 'alice',
        role: 'admin',
        policy: {
          dailyTokens: 0,
          rpm: 60,
          concurrency: 2,
          maxOutput: 8192,
          providers: ['alpha', 'beta'],
          models: ['alpha/alpha-1', 'beta/org/beta-4', 'alpha/alpha-2'],
        },
      },
    },
  ],
  [['member', 'list'], { method: 'GET', path: '/admin/v1/members' }],
  [['member', 'disable', 'mem_1'], { method: 'POST', path: '/admin/v1/members/mem_1/disable' }],
  [['member', 'enable', 'mem_1'], { method: 'POST', path: '/admin/v1/members/mem_1/enable' }],
  [['member', 'suspend', 'mem 1/x'], { method: 'POST', path: '/admin/v1/members/mem%201%2Fx/suspend' }],
  [['key', 'create', '--member', 'mem_1'], { method: 'POST', path: '/admin/v1/keys', body: { memberId: 'mem_1' } }],
  [
    [
      'key',
      'create',
      '--member',
      'mem_1',
      '--name',
      'laptop',
      '--expires',
      '2026-03-01T12:00:00+02:00',
      '--providers',
      'alpha',
      '--models',
      'alpha/alpha-1',
      '--rpm',
      '10',
      '--concurrency',
      '1',
      '--max-output',
      '4096',
    ],
    {
      method: 'POST',
      path: '/admin/v1/keys',
      body: {
        memberId: 'mem_1',
        name: 'laptop',
        expiresAt: '2026-03-01T10:00:00.000Z',
        policy: { providers: ['alpha'], models: ['alpha/alpha-1'], rpm: 10, concurrency: 1, maxOutput: 4096 },
      },
    },
  ],
  [
    ['key', 'create', '--member', 'mem_1', '--expires', '2026-03-01'],
    { method: 'POST', path: '/admin/v1/keys', body: { memberId: 'mem_1', expiresAt: '2026-03-01T00:00:00.000Z' } },
  ],
  [['key', 'list'], { method: 'GET', path: '/admin/v1/keys' }],
  [['key', 'list', '--member', 'mem_1'], { method: 'GET', path: '/admin/v1/keys', query: { memberId: 'mem_1' } }],
  [['key', 'revoke', 'key_1'], { method: 'POST', path: '/admin/v1/keys/key_1/revoke' }],
  [['key', 'rotate', 'key_1'], { method: 'POST', path: '/admin/v1/keys/key_1/rotate' }],
  [['connection', 'list'], { method: 'GET', path: '/admin/v1/connections' }],
  [['connection', 'enable', 'con_1'], { method: 'POST', path: '/admin/v1/connections/con_1/enable' }],
  [['connection', 'disable', 'con_1'], { method: 'POST', path: '/admin/v1/connections/con_1/disable' }],
  [['connection', 'test', 'con_1'], { method: 'POST', path: '/admin/v1/connections/con_1/test', body: {} }],
  [
    ['connection', 'test', 'con_1', '--generate', '--model', 'acme-1'],
    { method: 'POST', path: '/admin/v1/connections/con_1/test', body: { generate: true, model: 'acme-1' } },
  ],
];

describe('requests sent to the admin API', () => {
  it.each(requestCases)('%j', async (argv, expected) => {
    const run = await runAgainstStub(argv);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(stub.requests).toHaveLength(1);
    const [request] = stub.requests;
    // toEqual, not toMatchObject: a field the command did not ask for (an empty policy, say) must not be sent.
    expect({ method: request?.method, path: request?.path, query: request?.query, body: request?.body }).toEqual({
      ...expected,
      query: expected.query ?? {},
    });
    expect(request?.headers.authorization).toBe(`Bearer ${testAdminKey}`);
    expect(request?.headers['content-type']).toBe(expected.body === undefined ? undefined : 'application/json');
  });

  it('sends the provider credential from standard input, trimmed, and never prints it', async () => {
    const credential = 'sk-upstream-credential-0123456789';
    for (const json of [[], ['--json']]) {
      stub.requests.length = 0;
      const run = await runAgainstStub(
        [
          'connection',
          'create',
          '--provider',
          'alpha',
          '--wire',
          'anthropic-messages',
          '--base-url',
          'https://api.example.com/v1',
          '--models',
          'alpha-1,alpha-2',
          '--upstream',
          'alpha',
          '--api-key-stdin',
          ...json,
        ],
        `  ${credential}\n`,
      );
      expect(run.code).toBe(0);
      expect(stub.requests[0]).toMatchObject({
        method: 'POST',
        path: '/admin/v1/connections',
        body: {
          provider: 'alpha',
          wire: 'anthropic-messages',
          baseUrl: 'https://api.example.com/v1',
          models: ['alpha-1', 'alpha-2'],
          upstream: 'alpha',
          apiKey: credential,
        },
      });
      expect(run.stdout + run.stderr).not.toContain(credential);
    }
  });

  it('sends models with their limits as objects, plain ids as strings, and ids with colons whole', async () => {
    const run = await runAgainstStub(
      [
        'connection',
        'create',
        '--provider',
        'acme',
        '--wire',
        'anthropic-messages',
        '--base-url',
        'https://api.example.com',
        '--models',
        'acme-1:ctx=200000:max=8192, acme-2 ,llama3:8b:max=4096',
        '--models',
        'ft:gpt-4o:org:x,acme-3:max=1024:ctx=32000,acme-4:input=image+video:ctx=64000',
        '--api-key-stdin',
      ],
      'credential\n',
    );
    expect(run.code).toBe(0);
    expect(stub.requests[0]?.body).toMatchObject({
      models: [
        { id: 'acme-1', contextWindow: 200_000, maxOutput: 8_192 },
        'acme-2',
        { id: 'llama3:8b', maxOutput: 4_096 },
        'ft:gpt-4o:org:x',
        { id: 'acme-3', contextWindow: 32_000, maxOutput: 1_024 },
        { id: 'acme-4', contextWindow: 64_000, inputModalities: ['image', 'video'] },
      ],
    });
  });

  it('keeps the path of a GATEWAY_URL that has one', async () => {
    const run = await runInProcess(['member', 'list'], {
      env: { GATEWAY_ADMIN_KEY: testAdminKey, GATEWAY_URL: `${stub.url}/gateway/` },
      fetch,
    });
    expect(run.code).toBe(1);
    expect(stub.requests[0]?.path).toBe('/gateway/admin/v1/members');
  });
});
