import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { batchLegacyRecords } from '../../cli/legacy-usage-file.ts';
import { runInProcess, testAdminKey } from './cli-harness.ts';
import {
  type RecordedRequest,
  type StubAdminServer,
  type StubAnswer,
  startStubAdminServer,
} from './stub-admin-server.ts';

const fixtureFolder = fileURLToPath(new URL('../fixtures/legacy-usage/', import.meta.url));
const goodFile = join(fixtureFolder, 'engine-0.1.jsonl');
const malformedFile = join(fixtureFolder, 'malformed.jsonl');

let stub: StubAdminServer;
let folder: string;
/** Which request (counted from 1) the stub refuses, to imitate a failure half-way; 0 refuses none. */
let refuseRequest = 0;

/** The admin API's contract for an import: every record new, unless the stub is told to refuse. */
function importAnswer(request: RecordedRequest): StubAnswer {
  if (request.method !== 'POST' || request.path !== '/admin/v1/legacy-usage') {
    return { status: 404, body: { error: { message: 'no route', type: 'not_found', code: 'no_route' } } };
  }
  if (stub.requests.length === refuseRequest) {
    return { status: 503, body: { error: { message: 'Try again later.', type: 'api_error', code: 'unavailable' } } };
  }
  const { records } = request.body as { records: unknown[] };
  return { status: 200, body: { imported: records.length, skipped: 0 } };
}

beforeAll(async () => {
  stub = await startStubAdminServer(importAnswer);
  folder = await mkdtemp(join(tmpdir(), 'legacy-import-'));
});
afterAll(async () => {
  await stub.close();
  await rm(folder, { recursive: true, force: true });
});
beforeEach(() => {
  stub.requests.length = 0;
  refuseRequest = 0;
});

const env = () => ({ GATEWAY_ADMIN_KEY: testAdminKey, GATEWAY_URL: stub.url });

async function fileWith(name: string, content: string | Buffer): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, content);
  return path;
}

function recordLine(index: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    timestamp: new Date(Date.UTC(2025, 5, 1) + index * 1000).toISOString(),
    keyId: 'key_a',
    provider: 'alpha',
    model: 'alpha-large',
    inputTokens: index,
    outputTokens: 1,
    ...extra,
  });
}

describe('usage import-legacy', () => {
  it('sends the records of the file without bodies or credentials, and reports the counts', async () => {
    const run = await runInProcess(['usage', 'import-legacy', goodFile], { env: env(), fetch });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('imported 6 records of the 0.1 engine; skipped 0 already imported\n');

    expect(stub.requests).toHaveLength(1);
    const [request] = stub.requests;
    if (!request) throw new Error('no request was sent');
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/admin/v1/legacy-usage');
    expect(request.headers.authorization).toBe(`Bearer ${testAdminKey}`);
    const { records } = request.body as { records: Record<string, unknown>[] };
    // Six records: the blank line is not one.
    expect(records).toHaveLength(6);
    const sent = JSON.stringify(records);
    expect(sent).not.toContain('CANARY');
    expect(records[1]).toMatchObject({ ts: 1748770200, member_id: 'mem_legacy_b', prompt_tokens: 80 });
    expect(records[1]).not.toHaveProperty('prompt');
    expect(records[2]).not.toHaveProperty('api_key');
    expect(records[2]?.['engine']).toEqual({ version: '0.1.7', node: 'worker-3' });
  });

  it('splits a large file into batches of at most 100 records and adds up the answers', async () => {
    const lines = Array.from({ length: 250 }, (_, index) => recordLine(index));
    const path = await fileWith('many.jsonl', `${lines.join('\n')}\n`);
    const run = await runInProcess(['usage', 'import-legacy', path, '--json'], { env: env(), fetch });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ imported: 250, skipped: 0 });
    expect(stub.requests.map((request) => (request.body as { records: unknown[] }).records.length)).toEqual([
      100, 100, 50,
    ]);
  });

  it('prints a single answer as received with --json', async () => {
    const run = await runInProcess(['usage', 'import-legacy', goodFile, '--json'], { env: env(), fetch });
    expect(JSON.parse(run.stdout)).toEqual({ imported: 6, skipped: 0 });
  });

  it('accepts CRLF line ends and a byte-order mark', async () => {
    const path = await fileWith('windows.jsonl', `\uFEFF${recordLine(1)}\r\n${recordLine(2)}\r\n`);
    const run = await runInProcess(['usage', 'import-legacy', path, '--json'], { env: env(), fetch });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ imported: 2, skipped: 0 });
  });

  it('says how many batches had been stored when one fails, with exit 1', async () => {
    const lines = Array.from({ length: 250 }, (_, index) => recordLine(index));
    const path = await fileWith('fails-half-way.jsonl', lines.join('\n'));
    refuseRequest = 2;
    const run = await runInProcess(['usage', 'import-legacy', path], { env: env(), fetch });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'gateway-admin usage import-legacy: Try again later. (code: unavailable, HTTP 503); ' +
        '1 of 3 requests had succeeded before it\n',
    );
    expect(stub.requests).toHaveLength(2);
  });
});

/** Each file must fail before anything is sent, with one line on stderr naming the problem, and exit code 2. */
const fileErrors: readonly (readonly [label: string, content: string | Buffer, message: RegExp])[] = [
  ['a line that is not JSON', `${recordLine(1)}\n{"timestamp":\n`, /bad\.jsonl line 2: not valid JSON; nothing was/],
  ['a line that is an array', `[1,2]\n`, /line 1: expected a JSON object/],
  [
    'a record without a model, after a blank line',
    `${recordLine(1)}\n\n${recordLine(3, { model: undefined })}\n`,
    /line 3: model: required; nothing was imported$/,
  ],
  ['negative tokens', `${recordLine(1, { outputTokens: -1 })}\n`, /line 1: outputTokens: .*>=0/],
  ['no key and no member', `${recordLine(1, { keyId: undefined })}\n`, /line 1: needs keyId or memberId/],
  [
    'several bad lines',
    [recordLine(1), '{', 'x', recordLine(4), 'null', '1', '2', '3', '4'].join('\n'),
    /line 2: not valid JSON \(6 more bad lines: 3, 5, 6, 7, 8, \.\.\.\); nothing was imported$/,
  ],
  ['only blank lines', '\n  \n\n', /bad\.jsonl holds no records$/],
  ['an empty file', '', /bad\.jsonl holds no records$/],
  ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), /bad\.jsonl is not UTF-8 text$/],
];

describe('usage import-legacy refuses a bad file before sending anything', () => {
  it.each(fileErrors)('%s → exit 2', async (_label, content, message) => {
    const path = await fileWith('bad.jsonl', content);
    const fetch = vi.fn<typeof globalThis.fetch>();
    const run = await runInProcess(['usage', 'import-legacy', path], { env: env(), fetch });
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd()).toMatch(message);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('names the line and the field of the shipped malformed fixture', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const run = await runInProcess(['usage', 'import-legacy', malformedFile], { env: env(), fetch });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `gateway-admin usage import-legacy: ${malformedFile} line 2: model: required (1 more bad line: 3); ` +
        'nothing was imported\n',
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it.each([
    ['a missing file', () => join(folder, 'missing.jsonl'), /cannot read .*missing\.jsonl: no such file$/],
    ['a folder', () => folder, /cannot read .*: it is a folder$/],
  ])('refuses %s with exit 2', async (_label, path, message) => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const run = await runInProcess(['usage', 'import-legacy', path()], { env: env(), fetch });
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd()).toMatch(message);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('needs FILE and reports command line mistakes before reading anything', async () => {
    expect((await runInProcess(['usage', 'import-legacy'])).stderr).toMatch(/usage import-legacy: missing FILE/);
    const extra = await runInProcess(['usage', 'import-legacy', 'a.jsonl', 'b.jsonl']);
    expect(extra).toMatchObject({ code: 2, stderr: expect.stringMatching(/unexpected argument 'b\.jsonl'/) });
    const noKey = await runInProcess(['usage', 'import-legacy', join(folder, 'missing.jsonl')], { env: {} });
    expect(noKey.stderr).toMatch(/GATEWAY_ADMIN_KEY is not set/);
  });

  it('has a usage line in the help', async () => {
    const run = await runInProcess(['help', 'usage'], { env: {} });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  gateway-admin usage import-legacy FILE [--json]\n');
  });
});

describe('batches', () => {
  it('close at 100 records or at the byte limit, whichever comes first, and keep the file order', () => {
    const records = Array.from({ length: 7 }, (_, index) => ({ index, padding: 'x'.repeat(90) }));
    const batches = batchLegacyRecords(records, { maxRecords: 3, maxBytes: 250 });
    expect(batches.map((batch) => batch.map((record) => record['index']))).toEqual([[0, 1], [2, 3], [4, 5], [6]]);
    expect(batchLegacyRecords(records, { maxRecords: 3, maxBytes: 10_000 }).map((batch) => batch.length)).toEqual([
      3, 3, 1,
    ]);
  });

  it('put a record larger than the byte limit in a batch of its own rather than drop it', () => {
    const records = [{ a: 1 }, { big: 'x'.repeat(500) }, { b: 2 }];
    expect(batchLegacyRecords(records, { maxRecords: 100, maxBytes: 100 }).map((batch) => batch.length)).toEqual([
      1, 1, 1,
    ]);
  });
});
