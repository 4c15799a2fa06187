import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess, testAdminKey } from './cli-harness.ts';
import { type StubAdminServer, type StubAnswer, startStubAdminServer } from './stub-admin-server.ts';

/**
 * `usage migrate-earlier-records` against a stand-in admin API: the command asks again while the gateway answers
 * that it is still carrying, reports each answer but the last on standard error, and stops at `complete`, at
 * `waiting`, on an error, or when an answer shows nothing moved. The real migration is exercised by
 * test/local/earlier-layout-upgrade.test.ts.
 */
const progress = (state: 'carrying' | 'waiting' | 'complete', scannedRecords: number, extra = {}) => ({
  state,
  step: state === 'complete' ? 'done' : 'scan',
  startedAt: '2026-01-02T03:00:00.000Z',
  completedAt: state === 'complete' ? '2026-01-02T03:30:00.000Z' : null,
  waitingUntil: state === 'waiting' ? '2026-01-02T03:16:00.000Z' : null,
  earlierRunning: 0,
  scannedRecords,
  unreadableRecords: 0,
  carriedRecords: scannedRecords,
  days: 2,
  foldedPartitions: state === 'complete' ? 32 : 0,
  partitionsToFold: 32,
  foldedRecords: state === 'complete' ? scannedRecords : 0,
  foldedDied: 0,
  ...extra,
});

let stub: StubAdminServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A stand-in answering the migration's POSTs with `answers` in turn, and GET with the first of them. */
async function stubAnswering(answers: readonly StubAnswer[]) {
  let next = 0;
  stub = await startStubAdminServer((request) =>
    request.method === 'GET' ? (answers[0] as StubAnswer) : (answers[next++] ?? (answers.at(-1) as StubAnswer)),
  );
  return stub;
}

const run = (server: StubAdminServer, ...flags: string[]) =>
  runInProcess(['usage', 'migrate-earlier-records', ...flags], {
    env: { GATEWAY_ADMIN_KEY: testAdminKey, GATEWAY_URL: server.url },
    fetch,
  });

describe('usage migrate-earlier-records', () => {
  it('asks again while the gateway is carrying, reporting progress, until it completes', async () => {
    const server = await stubAnswering([
      { status: 200, body: progress('carrying', 500) },
      { status: 200, body: progress('carrying', 1_000) },
      { status: 200, body: progress('complete', 1_200) },
    ]);
    const result = await run(server);
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /admin/v1/earlier-records/migrate',
      'POST /admin/v1/earlier-records/migrate',
      'POST /admin/v1/earlier-records/migrate',
    ]);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      'carrying (scan): scanned 500 earlier records, 500 carried so far; 0 of 32 record partitions in the rollups',
      'carrying (scan): scanned 1000 earlier records, 1000 carried so far; 0 of 32 record partitions in the rollups',
    ]);
    expect(result.stdout).toBe(
      'complete since 2026-01-02T03:30:00.000Z: scanned 1200 earlier records; 1200 earlier requests of 2 days in the ' +
        'current records and rollups. The earlier records table is no longer read (docs/store.md, "Upgrading a stage ' +
        'deployed with the earlier layout").\n',
    );
  });

  it('stops when the gateway must wait, and says until when', async () => {
    const server = await stubAnswering([
      { status: 200, body: progress('carrying', 10) },
      { status: 200, body: progress('waiting', 20, { earlierRunning: 3 }) },
    ]);
    const result = await run(server);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(result.stdout).toBe(
      'waiting until 2026-01-02T03:16:00.000Z: scanned 20 earlier records, 20 carried so far. 3 requests of the ' +
        'earlier version still running. The scheduled migration goes on by itself; or run this again after that.\n',
    );
  });

  it('stops when an answer shows that nothing moved', async () => {
    const server = await stubAnswering([{ status: 200, body: progress('carrying', 10) }]);
    const result = await run(server);
    expect(server.requests).toHaveLength(2);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^carrying \(scan\): scanned 10 earlier records/);
  });

  it('fails with the gateway’s error when a call fails, after the calls that succeeded', async () => {
    const server = await stubAnswering([
      { status: 200, body: progress('carrying', 10) },
      {
        status: 503,
        body: { error: { message: 'DynamoDB is throttling or unreachable.', code: 'store_unavailable' } },
      },
    ]);
    const result = await run(server);
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/DynamoDB is throttling or unreachable/);
  });

  it('only reads where the migration stands with --status', async () => {
    const server = await stubAnswering([{ status: 200, body: progress('carrying', 10) }]);
    const result = await run(server, '--status');
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /admin/v1/earlier-records',
    ]);
    expect(result.stdout).toMatch(/^carrying \(scan\)/);
  });
});
