import { GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../../async-work/map-with-concurrency.ts';
import { nothingToMigrate } from '../earlier-records.ts';
import type { EarlierRecordsMigration, EarlierRecordsMigrationOptions, EarlierRecordsStore } from '../store-port.ts';
import type { RunningRecord, UsageRecord } from '../usage-records.ts';
import { conditionFragments } from './condition-fragments.ts';
import type { RecordItem } from './dynamo-records.ts';
import { type DynamoTables, isConditionFailure, isMissingTable } from './dynamo-tables.ts';
import { foldCarriedPartition } from './earlier-records-fold.ts';
import { recordKey, recordShards } from './partition-keys.ts';

/**
 * Where the migration stands, in one control item: every step moves it with a write conditional on the version it
 * read, so two calls never both move it on from the same place, and a call that dies leaves it where its last
 * step finished (the work of an unfinished step is done again, which the conditional writes make harmless).
 */
interface ProgressItem {
  pk: typeof earlierMigrationProgressKey;
  version: number;
  step: EarlierRecordsMigration['step'];
  startedAt: string;
  completedAt?: string;
  /** The scan's next page starts after this key of the earlier table. */
  scanFrom?: Record<string, unknown>;
  /** The sweep's first and last day, and where its next page starts. */
  sweepFirst?: string;
  sweepLast?: string;
  sweepDay?: string;
  sweepFrom?: Record<string, unknown>;
  /** Earlier requests the current sweep found running, and the latest start among them. */
  sweepRunning: number;
  sweepLatestRunning?: string;
  /** Nothing moves before this instant. */
  waitingUntil?: string;
  earlierRunning: number;
  /** UTC days that hold carried records, in order; the fold goes through their record partitions in that order. */
  days: string[];
  foldFrom: number;
  scannedRecords: number;
  unreadableRecords: number;
  carriedRecords: number;
  foldedRecords: number;
  foldedDied: number;
}

/** The control item that holds the migration's progress. */
export const earlierMigrationProgressKey = 'meta#earlier-records';
const progressKey = { pk: earlierMigrationProgressKey } as const;
const defaultPageSize = 500;
const putConcurrency = 16;
const dayMs = 86_400_000;
const dayOf = (instant: string | number) => new Date(instant).toISOString().slice(0, 10);

/** The day index of the earlier table: its records of one UTC day, by start. */
const earlierDayIndex = 'day-time-index';

function view(progress: ProgressItem | undefined, now: Date): EarlierRecordsMigration {
  const waiting = progress?.waitingUntil !== undefined && Date.parse(progress.waitingUntil) > now.getTime();
  const partitions = (progress?.days.length ?? 0) * recordShards;
  return {
    state: progress?.step === 'done' ? 'complete' : waiting ? 'waiting' : 'carrying',
    step: progress?.step ?? 'scan',
    startedAt: progress?.startedAt || null,
    completedAt: progress?.completedAt ?? null,
    waitingUntil: waiting ? (progress?.waitingUntil ?? null) : null,
    earlierRunning: progress?.earlierRunning ?? 0,
    scannedRecords: progress?.scannedRecords ?? 0,
    unreadableRecords: progress?.unreadableRecords ?? 0,
    carriedRecords: progress?.carriedRecords ?? 0,
    foldedDied: progress?.foldedDied ?? 0,
    days: progress?.days.length ?? 0,
    foldedPartitions: progress?.step === 'done' ? partitions : (progress?.foldFrom ?? 0),
    partitionsToFold: partitions,
    foldedRecords: progress?.foldedRecords ?? 0,
  };
}

async function readProgress(tables: DynamoTables): Promise<ProgressItem | undefined> {
  const result = await tables.client.send(
    new GetCommand({ TableName: tables.names.control, Key: progressKey, ConsistentRead: true }),
  );
  return result.Item as ProgressItem | undefined;
}

/**
 * Stores the next progress if the stored one is still `previous` (or there is none yet, for the first); returns the
 * stored progress either way: the next one, or what another call moved it to meanwhile.
 */
async function moveProgress(
  tables: DynamoTables,
  previous: ProgressItem | undefined,
  next: ProgressItem,
): Promise<ProgressItem> {
  const { pk: _pk, ...attributes } = next;
  const present = Object.entries(attributes).filter(([, value]) => value !== undefined);
  const absent = Object.keys(attributes).filter((name) => attributes[name as keyof typeof attributes] === undefined);
  const names = Object.fromEntries(Object.keys(attributes).map((name) => [`#${name}`, name]));
  const values: Record<string, unknown> = Object.fromEntries(present.map(([name, value]) => [`:${name}`, value]));
  if (previous) values[':previousVersion'] = previous.version;
  try {
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: progressKey,
        UpdateExpression: [
          `SET ${present.map(([name]) => `#${name} = :${name}`).join(', ')}`,
          absent.length > 0 ? `REMOVE ${absent.map((name) => `#${name}`).join(', ')}` : '',
        ].join(' '),
        ConditionExpression: previous ? '#version = :previousVersion' : conditionFragments.controlItemAbsent,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return next;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const stored = await readProgress(tables);
    if (!stored) throw error;
    return stored;
  }
}

/** What carrying a page of earlier records did. */
interface CarriedPage {
  carried: number;
  /** Items without the id, member and start a record is keyed by: left where they are, and counted. */
  unreadable: number;
  running: number;
  latestRunning: string | undefined;
  days: Set<string>;
}

/**
 * Carries earlier records into the current layout: a closed one as it is, a running one whose lease has ended as
 * the reaper would have closed it (its process died, and the earlier code's reaper no longer runs), a running one
 * still within its lease not yet (the earlier code may still close it). Each is one conditional put, so a record
 * already carried is written, and counted, once. Carried records keep every attribute the earlier layout gave them.
 */
async function carryPage(
  tables: DynamoTables,
  items: readonly UsageRecord[],
  options: EarlierRecordsMigrationOptions,
): Promise<CarriedPage> {
  const page: CarriedPage = { carried: 0, unreadable: 0, running: 0, latestRunning: undefined, days: new Set() };
  const now = options.now.getTime();
  await mapWithConcurrency(items, putConcurrency, async (earlier) => {
    if (!isRecord(earlier)) {
      page.unreadable++;
      return;
    }
    let record: UsageRecord = earlier;
    let died = false;
    if (earlier.state === 'running') {
      if (Date.parse(earlier.startedAt) + options.leaseTtlMs > now) {
        page.running++;
        if (!page.latestRunning || earlier.startedAt > page.latestRunning) page.latestRunning = earlier.startedAt;
        return;
      }
      const running: RunningRecord = { ...earlier, state: 'running' };
      record = { ...earlier, ...options.closeDied(running, options.now) };
      died = true;
    }
    try {
      await tables.client.send(
        new PutCommand({
          TableName: tables.names.usage,
          Item: { ...record, ...recordKey(record), carried: died ? 'died' : 'closed' } satisfies RecordItem,
          ConditionExpression: conditionFragments.recordAbsent,
        }),
      );
      page.carried++;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    page.days.add(dayOf(record.startedAt));
  });
  return page;
}

/** Whether an item of the earlier table has what the current layout keys a record by. */
function isRecord(item: Partial<Record<keyof UsageRecord, unknown>>): boolean {
  return (
    typeof item.id === 'string' &&
    typeof item.memberId === 'string' &&
    typeof item.startedAt === 'string' &&
    !Number.isNaN(Date.parse(item.startedAt))
  );
}

/** The progress after a carried page: its counts added, its days among the days to fold. */
function withPage(progress: ProgressItem, page: CarriedPage): ProgressItem {
  return {
    ...progress,
    carriedRecords: progress.carriedRecords + page.carried,
    days: [...new Set([...progress.days, ...page.days])].sort(),
  };
}

/** One page of the scan of the whole earlier table; at its end, the sweep comes next, a lease length later. */
async function scanStep(
  tables: DynamoTables,
  progress: ProgressItem,
  options: EarlierRecordsMigrationOptions,
  earlierTable: string,
): Promise<ProgressItem> {
  let result: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };
  try {
    result = await tables.client.send(
      new ScanCommand({
        TableName: earlierTable,
        ExclusiveStartKey: progress.scanFrom,
        Limit: options.pageSize ?? defaultPageSize,
        ConsistentRead: true,
      }),
    );
  } catch (error) {
    // One machine whose data folder never had the earlier layout: there is nothing to carry, nor anyone to wait for.
    if (!isMissingTable(error)) throw error;
    return { ...progress, step: 'done', completedAt: options.now.toISOString() };
  }
  const items = (result.Items ?? []) as UsageRecord[];
  const page = await carryPage(tables, items, options);
  const next: ProgressItem = {
    ...withPage(progress, page),
    scannedRecords: progress.scannedRecords + items.length,
    unreadableRecords: progress.unreadableRecords + page.unreadable,
    earlierRunning: (progress.scanFrom ? progress.earlierRunning : 0) + page.running,
    scanFrom: result.LastEvaluatedKey,
  };
  if (result.LastEvaluatedKey) return next;
  // The earlier code may still be running requests, or starting them while the deployment goes on, for one lease
  // length after the first call: the sweep reads its last days again only after that.
  const sweepStart = Date.parse(progress.startedAt) - options.leaseTtlMs;
  return {
    ...next,
    step: 'sweep',
    waitingUntil: new Date(Date.parse(progress.startedAt) + options.leaseTtlMs).toISOString(),
    sweepFirst: dayOf(sweepStart),
    sweepDay: dayOf(sweepStart),
    sweepFrom: undefined,
    sweepRunning: 0,
    sweepLatestRunning: undefined,
  };
}

/**
 * One page of the sweep: the earlier records of the days a request of the earlier code may have started on since
 * the migration began (from one lease length before its first call until today), read again by day. What closed
 * since the scan, or was written behind it, is carried now. A sweep that still finds requests of the earlier code
 * running waits until their leases end and sweeps again; one that finds none hands over to the fold.
 */
async function sweepStep(
  tables: DynamoTables,
  progress: ProgressItem,
  options: EarlierRecordsMigrationOptions,
  earlierTable: string,
): Promise<ProgressItem> {
  const first = progress.sweepFirst ?? dayOf(Date.parse(progress.startedAt) - options.leaseTtlMs);
  const last = progress.sweepLast ?? dayOf(options.now.getTime());
  const day = progress.sweepDay ?? first;
  const result = await tables.client.send(
    new QueryCommand({
      TableName: earlierTable,
      IndexName: earlierDayIndex,
      KeyConditionExpression: '#day = :day',
      ExpressionAttributeNames: { '#day': 'day' },
      ExpressionAttributeValues: { ':day': day },
      ExclusiveStartKey: progress.sweepFrom,
      Limit: options.pageSize ?? defaultPageSize,
    }),
  );
  const page = await carryPage(tables, (result.Items ?? []) as UsageRecord[], options);
  const latest = [progress.sweepLatestRunning, page.latestRunning].filter((at) => at !== undefined).sort();
  const next: ProgressItem = {
    ...withPage(progress, page),
    sweepFirst: first,
    sweepLast: last,
    sweepRunning: progress.sweepRunning + page.running,
    sweepLatestRunning: latest.at(-1),
    waitingUntil: undefined,
  };
  if (result.LastEvaluatedKey) return { ...next, sweepDay: day, sweepFrom: result.LastEvaluatedKey };
  if (day < last) return { ...next, sweepDay: dayOf(Date.parse(day) + dayMs), sweepFrom: undefined };
  if (next.sweepRunning > 0 && next.sweepLatestRunning) {
    // Swept to the end with earlier requests still running: sweep again once the latest of their leases has ended.
    return {
      ...next,
      earlierRunning: next.sweepRunning,
      waitingUntil: new Date(Date.parse(next.sweepLatestRunning) + options.leaseTtlMs).toISOString(),
      sweepDay: first,
      sweepLast: undefined,
      sweepFrom: undefined,
      sweepRunning: 0,
      sweepLatestRunning: undefined,
    };
  }
  return { ...next, step: 'fold', earlierRunning: 0, foldFrom: 0 };
}

/**
 * Folds record partitions of the carried days into the rollups, in order, until this step has folded about a
 * page of records or a whole day's partitions; after the last partition the migration is complete.
 */
async function foldStep(
  tables: DynamoTables,
  progress: ProgressItem,
  options: EarlierRecordsMigrationOptions,
): Promise<ProgressItem> {
  const total = progress.days.length * recordShards;
  let unit = progress.foldFrom;
  let folded = 0;
  let died = 0;
  const stepEnd = Math.min(total, unit + recordShards);
  while (unit < stepEnd && folded < (options.pageSize ?? defaultPageSize)) {
    const day = progress.days[Math.floor(unit / recordShards)] as string;
    const partition = await foldCarriedPartition(tables, day, unit % recordShards);
    folded += partition.records;
    died += partition.died;
    unit++;
  }
  const next = {
    ...progress,
    foldFrom: unit,
    foldedRecords: progress.foldedRecords + folded,
    foldedDied: progress.foldedDied + died,
  };
  return unit < total ? next : { ...next, step: 'done', completedAt: options.now.toISOString() };
}

/**
 * The migration of the earlier layout's usage history into the current one (store-port.ts,
 * `EarlierRecordsStore`): scan, sweep, fold, each step a bounded piece of work that ends with the progress moved on.
 */
export function dynamoEarlierRecords(tables: DynamoTables): EarlierRecordsStore {
  const earlierTable = tables.earlierUsageTable;
  if (!earlierTable) return nothingToMigrate;
  return {
    progress: async (now) => view(await readProgress(tables), now),
    async migrate(options) {
      let progress = await readProgress(tables);
      if (!progress) {
        progress = await moveProgress(tables, undefined, {
          ...emptyProgress(),
          startedAt: options.now.toISOString(),
        });
      }
      for (let steps = 0; ; steps++) {
        if (progress.step === 'done') break;
        if (progress.waitingUntil && Date.parse(progress.waitingUntil) > options.now.getTime()) break;
        if (steps > 0 && options.deadline.remainingMs() === 0) break;
        const next =
          progress.step === 'scan'
            ? await scanStep(tables, progress, options, earlierTable)
            : progress.step === 'sweep'
              ? await sweepStep(tables, progress, options, earlierTable)
              : await foldStep(tables, progress, options);
        progress = await moveProgress(tables, progress, { ...next, version: progress.version + 1 });
      }
      return view(progress, options.now);
    },
  };
}

function emptyProgress(): ProgressItem {
  return {
    pk: earlierMigrationProgressKey,
    version: 1,
    step: 'scan',
    startedAt: '',
    sweepRunning: 0,
    earlierRunning: 0,
    days: [],
    foldFrom: 0,
    scannedRecords: 0,
    unreadableRecords: 0,
    carriedRecords: 0,
    foldedRecords: 0,
    foldedDied: 0,
  };
}
