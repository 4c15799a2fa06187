import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordPage, RecordQuery } from '../store-port.ts';
import type { UsageRecord } from '../usage-records.ts';
import { readRollups } from './dynamo-rollup-queries.ts';
import type { DynamoTables } from './dynamo-tables.ts';

/** Which time index to read: one member's (`member-time-index`) or one UTC day of the team's (`day-time-index`). */
type RecordPartition = { index: 'member'; memberId: string } | { index: 'day'; day: string };

/** One bounded Query: a time-index partition and an inclusive `startedAt` range. */
interface PartitionRead {
  partition: RecordPartition;
  from: string;
  to: string;
}

const dayMs = 86_400_000;

/** The UTC days from `from` to `to` (ISO instants), newest first. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = Date.parse(to.slice(0, 10)); day >= Date.parse(from.slice(0, 10)); day -= dayMs) {
    days.push(new Date(day).toISOString().slice(0, 10));
  }
  return days;
}

const maxString = (a: string, b: string) => (a > b ? a : b);
const minString = (a: string, b: string) => (a < b ? a : b);

/**
 * The Queries that cover the range, newest first: the member's own index when the query names a member, else the
 * team's day partitions. With `days` (where matching records can be), other days are skipped.
 */
function partitionReads(query: RecordQuery, days?: ReadonlySet<string>): PartitionRead[] {
  const { from, to } = query;
  const wanted = daysBetween(from, to).filter((day) => days === undefined || days.has(day));
  if (query.memberId === undefined) {
    return wanted.map((day) => ({ partition: { index: 'day', day }, from, to }));
  }
  const partition: RecordPartition = { index: 'member', memberId: query.memberId };
  if (days === undefined) return [{ partition, from, to }];
  return wanted.map((day) => ({
    partition,
    from: maxString(from, `${day}T00:00:00.000Z`),
    to: minString(to, `${day}T23:59:59.999Z`),
  }));
}

/**
 * The days a key or provider filter can match on: those whose day rollups show matching activity, plus the last
 * two days of the range, where requests may still be running (not in any rollup until they settle) or settled a
 * moment ago. The rollups are small next to the records, so a sparse filter skips most of the record reads.
 */
async function daysWithActivity(tables: DynamoTables, query: RecordQuery): Promise<Set<string>> {
  const rows = await readRollups(tables, {
    by: 'day',
    first: query.from.slice(0, 10),
    last: query.to.slice(0, 10),
    memberId: query.memberId,
    keyId: query.keyId,
  });
  const providers = new Set(query.providers ?? []);
  const days = new Set(
    rows.filter((row) => providers.size === 0 || providers.has(row.provider)).map((row) => row.hour.slice(0, 10)),
  );
  const last = Date.parse(query.to.slice(0, 10));
  for (const day of [last, last - dayMs]) days.add(new Date(day).toISOString().slice(0, 10));
  return days;
}

/**
 * Records newest first, always Queries bounded by the `startedAt` range on an index sort key, never a scan; reads
 * one more than the limit to know whether there are more, and stops as soon as it has them.
 */
export async function readRecordsNewestFirst(tables: DynamoTables, query: RecordQuery): Promise<RecordPage> {
  const filtered = query.keyId !== undefined || (query.providers?.length ?? 0) > 0;
  const days = filtered && query.state !== 'running' ? await daysWithActivity(tables, query) : undefined;
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  const records: UsageRecord[] = [];
  for (const read of partitionReads(query, days)) {
    // Unfiltered, exactly enough items; filtered, larger pages so a selective filter needs few round trips.
    const pageSize = filtered || !Number.isFinite(limit) ? 1_000 : limit + 1 - records.length;
    for await (const page of queryPartition(tables, read, query, pageSize)) {
      records.push(...page);
      if (records.length > limit) return { records: records.slice(0, limit), more: true };
    }
  }
  return { records, more: false };
}

async function* queryPartition(
  tables: DynamoTables,
  read: PartitionRead,
  query: RecordQuery,
  pageSize: number,
): AsyncGenerator<UsageRecord[]> {
  const names: Record<string, string> = { '#startedAt': 'startedAt' };
  const values: Record<string, unknown> = { ':from': read.from, ':to': read.to };
  let keyCondition: string;
  if (read.partition.index === 'member') {
    keyCondition = 'memberId = :partition AND #startedAt BETWEEN :from AND :to';
    values[':partition'] = read.partition.memberId;
  } else {
    keyCondition = '#day = :partition AND #startedAt BETWEEN :from AND :to';
    names['#day'] = 'day';
    values[':partition'] = read.partition.day;
  }
  const filters: string[] = [];
  if (query.keyId !== undefined) {
    filters.push('keyId = :keyId');
    values[':keyId'] = query.keyId;
  }
  if (query.providers && query.providers.length > 0) {
    const placeholders = query.providers.map((provider, index) => {
      values[`:provider${index}`] = provider;
      return `:provider${index}`;
    });
    filters.push(`provider IN (${placeholders.join(', ')})`);
  }
  if (query.state !== undefined) {
    filters.push(query.state === 'running' ? '#state = :running' : '#state <> :running');
    names['#state'] = 'state';
    values[':running'] = 'running';
  }
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.client.send(
      new QueryCommand({
        TableName: tables.names.usage,
        IndexName: read.partition.index === 'member' ? 'member-time-index' : 'day-time-index',
        KeyConditionExpression: keyCondition,
        FilterExpression: filters.length > 0 ? filters.join(' AND ') : undefined,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    yield (page.Items ?? []) as UsageRecord[];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
