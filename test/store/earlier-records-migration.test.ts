import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedDynalite } from '../../infra/local/embedded-dynalite.ts';
import { deadlineIn } from '../../shared/clock/monotonic-deadline.ts';
import { foldStreamBatch, recordChangesOf } from '../../shared/store/dynamodb/dynamo-rollup-stream.ts';
import { createDynamoStore, type DynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import { ensureTable, ensureTables } from '../../shared/store/dynamodb/ensure-tables.ts';
import { recordKey } from '../../shared/store/dynamodb/partition-keys.ts';
import type { EarlierRecordsMigration, EarlierRecordsMigrationOptions } from '../../shared/store/store-port.ts';
import { earlierUsageTable, type TableLogicalName } from '../../shared/store/table-definitions.ts';
import type { ClosedRequest, RecordOutcome, RunningRecord, UsageRecord } from '../../shared/store/usage-records.ts';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';

/**
 * The migration of the earlier DynamoDB layout's usage history (shared/store/dynamodb/earlier-records-migration.ts),
 * on dynalite and on AWS's DynamoDB Local: records written as the earlier layout wrote them (keyed by request id,
 * found by the member and day indexes, rollups under `day#…`), then carried in small steps, interrupted, repeated
 * and run twice at once, with the earlier code closing and starting requests meanwhile and new traffic arriving.
 * Whatever happens, every earlier request ends up once in the current layout's records and once in its rollups.
 * Every instant is given explicitly, so nothing depends on the time of day the test runs at.
 */
const leaseTtlMs = 960_000;
const upgradeAt = Date.parse('2025-04-02T12:00:00.000Z');
const days = ['2025-03-30', '2025-03-31', '2025-04-01', '2025-04-02'];
const members = ['mem_earlier_a', 'mem_earlier_b', 'mem_earlier_c'];
const at = (instant: number) => new Date(instant).toISOString();
const minutes = (count: number) => count * 60_000;

/** As shared/usage/migrate-earlier-records.ts closes a request that died. */
const closeDied = (record: RunningRecord, now: Date): RecordOutcome => ({
  state: 'failed',
  status: 500,
  endedAt: now.toISOString(),
  durationMs: now.getTime() - Date.parse(record.startedAt),
  inputTokens: null,
  cachedInputTokens: null,
  outputTokens: null,
  charge: record.reserved,
  source: 'conservative',
});

function running(id: string, memberId: string, startedAt: string, reserved = 500): RunningRecord {
  return {
    id,
    memberId,
    keyId: `key_${memberId.slice(-1)}_000001`,
    provider: id.endsWith('7') ? 'anthropic' : 'openai',
    model: id.endsWith('7') ? 'anthropic/m' : 'openai/m',
    connectionId: 'con_earlier',
    upstream: 'lb',
    wire: 'openai-chat',
    stream: false,
    startedAt,
    day: startedAt.slice(0, 10),
    reserved,
    state: 'running',
  };
}

function closed(record: RunningRecord, index: number): UsageRecord {
  const failed = index % 5 === 0;
  return {
    ...record,
    state: failed ? 'failed' : 'completed',
    status: failed ? 502 : 200,
    endedAt: at(Date.parse(record.startedAt) + 1_000),
    durationMs: 1_000,
    inputTokens: failed ? null : 100 + index,
    cachedInputTokens: index % 3 === 0 ? 10 : null,
    outputTokens: failed ? null : 20 + (index % 7),
    charge: failed ? record.reserved : 120 + index + (index % 7),
    source: failed ? 'conservative' : 'measured',
  };
}

/** The earlier layout's history: closed requests on four days, one that died long ago, one running at the upgrade. */
const earlierClosed: UsageRecord[] = days.flatMap((day, dayIndex) =>
  Array.from({ length: 9 }, (_, index) => {
    const number = dayIndex * 9 + index;
    const memberId = members[number % members.length] as string;
    const startedAt = `${day}T${String(2 + ((number * 5) % 9)).padStart(2, '0')}:${String(number % 60).padStart(2, '0')}:00.000Z`;
    return closed(running(`req_earlier_${String(number).padStart(3, '0')}`, memberId, startedAt), number);
  }),
);
/** Its process died on the day before the upgrade: the earlier reaper never settled it before it was replaced. */
const died = running('req_earlier_died', 'mem_earlier_b', '2025-04-01T22:10:00.000Z', 700);
/** Running when the migration starts; the earlier code closes it a minute later. */
const inFlight = running('req_earlier_inflight', 'mem_earlier_a', at(upgradeAt - minutes(2)), 900);
/** Admitted by the earlier code during the deployment, after the migration began, and never settled. */
const lateStarter = running('req_earlier_late', 'mem_earlier_c', at(upgradeAt + minutes(3)), 400);

/** The records the current layout must hold for the earlier history once the migration is complete. */
function expectedEarlierRecords(completedAt: number): UsageRecord[] {
  const inFlightClosed = closed(inFlight, 1);
  return [
    ...earlierClosed,
    { ...died, ...closeDied(died, new Date(upgradeAt)) },
    inFlightClosed,
    { ...lateStarter, ...closeDied(lateStarter, new Date(completedAt)) },
  ];
}

interface DayFigures {
  requests: number;
  failed: number;
  charge: number;
  inputTokens: number;
  inputTokensReported: number;
  outputTokens: number;
}

/** The figures of one bucket, starting from nothing. */
function figuresOf(figures: Record<string, DayFigures>, bucket: string): DayFigures {
  const found = figures[bucket];
  if (found) return found;
  const fresh = { requests: 0, failed: 0, charge: 0, inputTokens: 0, inputTokensReported: 0, outputTokens: 0 };
  figures[bucket] = fresh;
  return fresh;
}

/** Per UTC day (or hour), added up plainly from the records, not through the code under test. */
function figuresBy(records: readonly UsageRecord[], width: 10 | 13): Record<string, DayFigures> {
  const figures: Record<string, DayFigures> = {};
  for (const record of records) {
    if (record.state === 'running') continue;
    const bucket = record.startedAt.slice(0, width);
    const sum = figuresOf(figures, bucket);
    sum.requests++;
    sum.failed += record.state === 'failed' ? 1 : 0;
    sum.charge += record.charge;
    sum.inputTokens += record.inputTokens ?? 0;
    sum.inputTokensReported += record.inputTokens === null ? 0 : 1;
    sum.outputTokens += record.outputTokens ?? 0;
  }
  return figures;
}

const engines = ['dynalite', 'DynamoDB Local'] as const;

describe.each(engines)('the earlier layout carried into the current one, on %s', (engineName) => {
  let endpoint: string;
  let stopEngine: () => Promise<void>;
  let client: DynamoDBClient;

  beforeAll(async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const engine =
      engineName === 'dynalite'
        ? await startEmbeddedDynalite(await mkdtemp(join(tmpdir(), 'earlier-migration-')))
        : await startDynamoDbLocal();
    endpoint = engine.endpoint;
    stopEngine = () => engine.close();
    client = new DynamoDBClient({
      region: 'local',
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    await stopEngine?.();
  });

  /** A deployment of its own (tables under `prefix`), with the earlier records table created as that layout had it. */
  async function deployment(prefix: string) {
    const tableNames: Record<TableLogicalName, string> = {
      control: `${prefix}-control`,
      usage: `${prefix}-records`,
      rollups: `${prefix}-rollups`,
      legacyUsage: `${prefix}-legacy-usage`,
    };
    await ensureTables(client, tableNames);
    await ensureTable(client, `${prefix}-usage`, earlierUsageTable);
    const open = () =>
      createDynamoStore({ region: 'local', endpoint, tableNames, earlierUsageTable: `${prefix}-usage` });
    const store = open();
    const put = (table: string, item: Record<string, unknown>) =>
      store.client.send(new PutCommand({ TableName: table, Item: item }));
    /** What the earlier code did: its records, and the rollups under `day#` it kept beside them. */
    const writeEarlier = async (records: readonly UsageRecord[]) => {
      for (const record of records) await put(`${prefix}-usage`, { ...record });
      for (const [day, figures] of Object.entries(figuresBy(records, 10))) {
        await put(tableNames.rollups, { pk: `day#${day}`, sk: 'total#earlier', ...figures });
      }
    };
    return { tableNames, store, open, put, writeEarlier };
  }

  const migrateUntilSettled = async (
    store: DynamoStore,
    now: number,
    options: Partial<EarlierRecordsMigrationOptions> = {},
  ): Promise<EarlierRecordsMigration[]> => {
    const answers: EarlierRecordsMigration[] = [];
    for (let call = 0; call < 500; call++) {
      const answer = await store.earlierRecords.migrate({
        now: new Date(now),
        deadline: deadlineIn(0),
        leaseTtlMs,
        closeDied,
        pageSize: 4,
        ...options,
      });
      answers.push(answer);
      if (answer.state !== 'carrying') return answers;
    }
    throw new Error('the migration did not settle in 500 calls');
  };

  const recordsOf = async (store: DynamoStore) =>
    (await store.records.newest({ from: '2025-03-30T00:00:00.000Z', to: '2025-04-03T23:59:59.999Z' })).records;

  const rollupFigures = async (store: DynamoStore, by: 'day' | 'hour') => {
    const rows = await store.rollups.read(
      by === 'day'
        ? { by: 'day', first: days[0] as string, last: '2025-04-03' }
        : { by: 'hour', first: '2025-03-30T00', last: '2025-04-03T23' },
    );
    const figures: Record<string, DayFigures> = {};
    for (const row of rows) {
      const bucket = by === 'day' ? row.hour.slice(0, 10) : row.hour;
      const sum = figuresOf(figures, bucket);
      sum.requests += row.requests;
      sum.failed += row.failed;
      sum.charge += row.charge;
      sum.inputTokens += row.inputTokens;
      sum.inputTokensReported += row.inputTokensReported;
      sum.outputTokens += row.outputTokens;
    }
    return figures;
  };

  /** A request of the current version, settled and folded as the gateway does it (the records' own fold). */
  const newTraffic = async (store: DynamoStore, id: string, startedAt: string): Promise<UsageRecord> => {
    const record = closed(running(id, 'mem_earlier_a', startedAt), 3);
    const request = { record: { ...record, state: 'running' }, outcome: record } as unknown as ClosedRequest;
    await store.records.close(request);
    await store.rollups.add([request]);
    return record;
  };

  it('carries every record once, waits for the earlier code, folds the rollups once, and stays put when run again', async () => {
    const { store, writeEarlier, put, tableNames } = await deployment('plain');
    await writeEarlier([...earlierClosed, died, inFlight]);

    // Small steps from the upgrade on: the scan carries what is closed (and the request that died, as the reaper
    // would have closed it), and then waits a lease length for the earlier code to finish what it runs.
    const scan = await migrateUntilSettled(store, upgradeAt);
    expect(scan.length).toBeGreaterThan(5);
    const waiting = scan.at(-1) as EarlierRecordsMigration;
    expect(waiting).toMatchObject({
      state: 'waiting',
      step: 'sweep',
      waitingUntil: at(upgradeAt + leaseTtlMs),
      scannedRecords: earlierClosed.length + 2,
      carriedRecords: earlierClosed.length + 1,
      earlierRunning: 1,
    });
    expect((await recordsOf(store)).map((record) => record.id).toSorted()).toEqual(
      [...earlierClosed, died].map((record) => record.id).toSorted(),
    );

    // Meanwhile the earlier code closes its request in flight, and starts one more during the deployment that its
    // process never settles; the current version serves a request of its own.
    await put('plain-usage', { ...closed(inFlight, 1) });
    await put('plain-usage', { ...lateStarter });
    const fresh = await newTraffic(store, 'req_current_1', at(upgradeAt + minutes(30)));

    // A lease length after the first call the sweep reads the last days again: the closed request is carried, the
    // late one is still within its lease, so the migration waits for that too.
    const sweep = await migrateUntilSettled(store, upgradeAt + leaseTtlMs + minutes(1));
    expect(sweep.at(-1)).toMatchObject({
      state: 'waiting',
      step: 'sweep',
      earlierRunning: 1,
      waitingUntil: at(Date.parse(lateStarter.startedAt) + leaseTtlMs),
    });

    // Once its lease has ended it is closed as died, and the carried records are folded into the rollups.
    const completedAt = Date.parse(lateStarter.startedAt) + leaseTtlMs + minutes(1);
    const fold = await migrateUntilSettled(store, completedAt);
    const complete = fold.at(-1) as EarlierRecordsMigration;
    const earlier = expectedEarlierRecords(completedAt);
    expect(complete).toMatchObject({
      state: 'complete',
      step: 'done',
      completedAt: at(completedAt),
      carriedRecords: earlier.length,
      foldedRecords: earlier.length,
      foldedDied: 2,
      days: 4,
      partitionsToFold: 64,
      foldedPartitions: 64,
    });
    expect(fold.some((answer) => answer.step === 'fold' && answer.state === 'carrying')).toBe(true);

    const expectedRecords = [...earlier, fresh];
    const stored = await recordsOf(store);
    expect(stored.map((record) => record.id).toSorted()).toEqual(expectedRecords.map((record) => record.id).toSorted());
    for (const record of expectedRecords) expect(stored.find((one) => one.id === record.id)).toEqual(record);
    expect(await rollupFigures(store, 'day')).toEqual(figuresBy(expectedRecords, 10));
    expect(await rollupFigures(store, 'hour')).toEqual(figuresBy(expectedRecords, 13));

    // Run again, and as a late duplicate of every call: nothing moves.
    const again = await migrateUntilSettled(store, completedAt + minutes(60));
    expect(again).toEqual([complete]);
    expect(await rollupFigures(store, 'day')).toEqual(figuresBy(expectedRecords, 10));
    expect(await store.earlierRecords.progress(new Date(completedAt))).toEqual(complete);

    // On AWS the records table's stream delivers the carried records too: its fold leaves them to the migration.
    const carriedItems = stored
      .filter((record) => record.id !== fresh.id)
      .map((record, index) => ({
        dynamodb: {
          SequenceNumber: String(5_000 + index),
          NewImage: marshall({ ...record, ...recordKey(record), carried: true }, { removeUndefinedValues: true }),
        },
      }));
    const streamed = await foldStreamBatch({ client: store.client, names: tableNames }, recordChangesOf(carriedItems));
    expect(streamed).toEqual({ folded: 0, writes: 0 });
    expect(await rollupFigures(store, 'day')).toEqual(figuresBy(expectedRecords, 10));
    await store.close();
  });

  it('counts each record once when calls die half-way and two run at once', async () => {
    const { store, open, writeEarlier } = await deployment('faulty');
    const completedAt = upgradeAt + leaseTtlMs + minutes(1);
    const earlier = [...earlierClosed, { ...died }];
    await writeEarlier(earlier);

    // Every few writes of the carry and of the fold fail, as a throttled table or a dying function would: each
    // failed call leaves some of its step done and the progress where it was.
    let writes = 0;
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (/^(Put|Update)/.test(context.commandName ?? '') && ++writes % 7 === 0) {
          await next(args);
          throw Object.assign(new Error('the function died after this write'), { name: 'ThrottlingException' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'dieHalfWay', priority: 'low' },
    );
    let failures = 0;
    let state: EarlierRecordsMigration['state'] = 'carrying';
    for (let call = 0; call < 2_000 && state !== 'complete'; call++) {
      const now: number = state === 'waiting' ? completedAt : upgradeAt;
      try {
        state = (await migrateUntilSettled(store, now)).at(-1)?.state ?? 'carrying';
      } catch {
        failures++;
      }
    }
    expect(state).toBe('complete');
    expect(failures).toBeGreaterThan(3);

    // And two more, at once, from two processes, after the first has completed: no record or figure moves.
    const second = open();
    await Promise.all([migrateUntilSettled(second, completedAt), migrateUntilSettled(open(), completedAt)]);
    const expected = [...earlierClosed, { ...died, ...closeDied(died, new Date(upgradeAt)) }];
    const stored = await recordsOf(second);
    expect(stored.map((record) => record.id).toSorted()).toEqual(expected.map((record) => record.id).toSorted());
    expect(await rollupFigures(second, 'day')).toEqual(figuresBy(expected, 10));
    expect(await rollupFigures(second, 'hour')).toEqual(figuresBy(expected, 13));
    await second.close();
    await store.close();
  });

  it('runs two migrations at once from the start without counting anything twice', async () => {
    const { open, writeEarlier, put } = await deployment('racing');
    await writeEarlier([...earlierClosed]);
    // And an item no record of that layout looked like: left where it is, and counted.
    await put('racing-usage', { id: 'req_without_start', memberId: 'mem_earlier_a', state: 'completed' });
    const completedAt = upgradeAt + leaseTtlMs + minutes(1);
    const [first, second] = [open(), open()];
    for (const now of [upgradeAt, completedAt]) {
      const [a, b] = await Promise.all([migrateUntilSettled(first, now), migrateUntilSettled(second, now)]);
      expect(a.at(-1)?.state).toBe(b.at(-1)?.state);
    }
    expect(await first.earlierRecords.progress(new Date(completedAt))).toMatchObject({
      state: 'complete',
      scannedRecords: earlierClosed.length + 1,
      unreadableRecords: 1,
      foldedRecords: earlierClosed.length,
    });
    const stored = await recordsOf(first);
    expect(stored).toHaveLength(earlierClosed.length);
    expect(await rollupFigures(first, 'day')).toEqual(figuresBy(earlierClosed, 10));
    await first.close();
    await second.close();
  });
});
