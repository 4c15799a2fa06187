import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, testAdminKey } from './cli-harness.ts';
import {
  connectionTestFixture,
  contractAnswer,
  issuedSecret,
  type RecordedRequest,
  type StubAdminServer,
  type StubAnswer,
  startStubAdminServer,
} from './stub-admin-server.ts';

let stub: StubAdminServer;
// Lets a test replace the answer of the shared stub for its own request.
let answerOverride: ((request: RecordedRequest) => StubAnswer) | undefined;

beforeAll(async () => {
  stub = await startStubAdminServer((request) => (answerOverride ?? contractAnswer)(request));
});
afterAll(async () => {
  await stub.close();
});

async function runAgainstStub(argv: readonly string[], answer?: (request: RecordedRequest) => StubAnswer) {
  answerOverride = answer;
  try {
    return await runInProcess(argv, { env: { GATEWAY_ADMIN_KEY: testAdminKey, GATEWAY_URL: stub.url }, fetch });
  } finally {
    answerOverride = undefined;
  }
}

/** The cell under `header` in `row`, found by the header's column position. */
function cellUnder(table: string, header: string, rowIndex: number): string {
  const [headerLine = '', ...rows] = table.trimEnd().split('\n');
  const start = headerLine.indexOf(header);
  const row = rows[rowIndex] ?? '';
  return row.slice(start).split(/\s{2,}/)[0] ?? '';
}

describe('readable output', () => {
  it('prints members as an aligned table', async () => {
    const run = await runAgainstStub(['member', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+ROLE\s+STATUS\s+POLICY\s+CREATED$/);
    expect(cellUnder(run.stdout, 'NAME', 0)).toBe('alice');
    expect(cellUnder(run.stdout, 'NAME', 1)).toBe('bob');
    expect(cellUnder(run.stdout, 'STATUS', 1)).toBe('active');
    expect(cellUnder(run.stdout, 'POLICY', 0)).toBe('daily-tokens=100000 rpm=60 providers=alpha');
    expect(cellUnder(run.stdout, 'CREATED', 0)).toBe('2026-01-02T03:04:05.000Z');
    expect(run.stdout).not.toMatch(/ \n/);
  });

  it('prints one member as aligned key: value lines', async () => {
    const run = await runAgainstStub(['member', 'suspend', 'mem_1']);
    expect(run.stdout).toBe(
      [
        'id:      mem_1',
        'name:    alice',
        'role:    member',
        'status:  suspended',
        'policy:  daily-tokens=100000 rpm=60 providers=alpha',
        'created: 2026-01-02T03:04:05.000Z',
        '',
      ].join('\n'),
    );
  });

  it('prints a new key with its secret and says it is shown once', async () => {
    const run = await runAgainstStub(['key', 'create', '--member', 'mem_1']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^key:\\s+${issuedSecret}$`, 'm'));
    expect(run.stdout).toMatch(/^id:\s+key_1$/m);
    expect(run.stdout).toMatch(/^expires:\s+never$/m);
    expect(run.stdout).toMatch(/^policy:\s+max-output=4096$/m);
    expect(run.stdout).toContain('shown only once');
  });

  it('prints the new secret of a rotated key', async () => {
    const run = await runAgainstStub(['key', 'rotate', 'key_1']);
    expect(run.stdout).toMatch(new RegExp(`^key:\\s+${issuedSecret}-rotated$`, 'm'));
  });

  it('prints keys and connections as tables', async () => {
    const keys = await runAgainstStub(['key', 'list']);
    expect(cellUnder(keys.stdout, 'PREFIX', 0)).toBe('sk-gw-abcd');
    expect(cellUnder(keys.stdout, 'STATE', 0)).toBe('active');
    expect(keys.stdout).not.toContain(issuedSecret);

    const connections = await runAgainstStub(['connection', 'list']);
    expect(cellUnder(connections.stdout, 'BASE URL', 0)).toBe('https://api.example.com/v1');
    // Limits are shown as --models takes them.
    expect(cellUnder(connections.stdout, 'MODELS', 0)).toBe('alpha-1:ctx=200000:max=8192:input=text+image,alpha-2');
    expect(cellUnder(connections.stdout, 'ENABLED', 0)).toBe('yes');
  });

  it('prints a connection test call by call, and exits 1 when one failed', async () => {
    const run = await runAgainstStub(['connection', 'test', 'con_1'], () => ({
      status: 200,
      body: connectionTestFixture,
    }));
    expect(run.code).toBe(1);
    const [title = '', ...rest] = run.stdout.split('\n');
    expect(title).toBe('connection con_1 (alpha, openai-chat) at https://api.example.com/v1');
    const table = rest.slice(0, 3).join('\n');
    expect(table.split('\n')[0]).toMatch(/^CALL\s+URL\s+STATUS\s+LATENCY\s+RESULT$/);
    expect(cellUnder(table, 'URL', 0)).toBe('GET https://api.example.com/v1/models');
    expect(cellUnder(table, 'LATENCY', 0)).toBe('42 ms');
    expect(cellUnder(table, 'RESULT', 0)).toBe('ok: 7 models (alpha-1, alpha-2, m3, m4, m5, …)');
    expect(cellUnder(table, 'CALL', 1)).toBe('generation alpha-1');
    expect(cellUnder(table, 'STATUS', 1)).toBe('401');
    expect(cellUnder(table, 'RESULT', 1)).toBe(
      'upstream_status: The upstream refused the credential (401): check the API key.',
    );
    expect(run.stdout).toContain("not in the upstream's model list: alpha-3\n");
    expect(run.stdout.endsWith('the connection test failed\n')).toBe(true);

    const passed = await runAgainstStub(['connection', 'test', 'con_1', '--json']);
    expect(passed.code).toBe(0);
    expect(JSON.parse(passed.stdout)).toMatchObject({ ok: true, probes: [{ status: 200 }] });
  });

  it('says so when a list is empty', async () => {
    const run = await runAgainstStub(['connection', 'list'], () => ({ status: 200, body: { connections: [] } }));
    expect(run).toMatchObject({ code: 0, stdout: 'no connections\n' });
  });

  it('fails with exit 1 when the answer lacks what the table needs', async () => {
    const run = await runAgainstStub(['member', 'list'], () => ({ status: 200, body: { people: [] } }));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unexpected shape at members.*--json/);
  });
});

describe('--json', () => {
  it.each([
    [['member', 'list']],
    [['member', 'create', '--name', 'alice']],
    [['key', 'list', '--member', 'mem_1']],
    [['key', 'revoke', 'key_1']],
    [['connection', 'disable', 'con_1']],
  ])('%j prints the answer as one JSON document', async (argv) => {
    const run = await runAgainstStub([...argv, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(contractAnswer(stub.requests.at(-1)!).body);
  });

  it('prints id and key at the top level for key create', async () => {
    const run = await runAgainstStub(['key', 'create', '--json', '--member', 'mem_1']);
    const printed: unknown = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ id: 'key_1', key: issuedSecret, memberId: 'mem_1' });
  });

  it('prints the answer even when the readable form could not show it', async () => {
    const run = await runAgainstStub(['member', 'list', '--json'], () => ({ status: 200, body: { people: [] } }));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ people: [] });
  });
});

describe('failures', () => {
  it("prints the server's message and code with exit 1", async () => {
    const run = await runAgainstStub(['member', 'disable', 'mem_9'], () => ({
      status: 404,
      body: { error: { message: 'member mem_9 does not exist', type: 'not_found_error', code: 'member_not_found' } },
    }));
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe(
      'gateway-admin member disable: member mem_9 does not exist (code: member_not_found, HTTP 404)\n',
    );
  });

  it('reports an answer that is not the error envelope by its status', async () => {
    const run = await runAgainstStub(['member', 'list'], () => ({ status: 502, body: '<html>Bad gateway</html>' }));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/HTTP 502.*<html>Bad gateway<\/html>/);
  });

  it('names GATEWAY_URL when nothing listens there', async () => {
    const closed = await startStubAdminServer();
    await closed.close();
    const run = await runInProcess(['member', 'list'], {
      env: { GATEWAY_ADMIN_KEY: testAdminKey, GATEWAY_URL: closed.url },
      fetch,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+ \(GATEWAY_URL\): .*ECONNREFUSED/);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
