import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordPage, RecordQuery } from '../store-port.ts';
import type { UsageRecord } from '../usage-records.ts';
import { type RecordItem, toUsageRecord } from './dynamo-records.ts';
import { readRollups } from './dynamo-rollup-queries.ts';
import type { DynamoTables } from './dynamo-tables.ts';
import { memberShards, recordPartition, recordShards } from './partition-keys.ts';

const dayMs = 86_400_000;

/** The UTC days from `from` to `to` (ISO instants), newest first. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = Date.parse(to.slice(0, 10)); day >= Date.parse(from.slice(0, 10)); day -= dayMs) {
    days.push(new Date(day).toISOString().slice(0, 10));
  }
  return days;
}

/** Newest first, as the sort key orders them (`startedAt#id`) and as the SQLite engine does. */
const newestFirst = (a: RecordItem, b: RecordItem) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0);

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
 * Records newest first, always Queries bounded by the `startedAt` range on the table's own sort key, never a scan:
 * day by day, newest first, the day's partitions of the member (or of the whole team) merged. Each partition is read
 * a page at a time, and only while it can still hold one of the newest records the limit wants: once a partition's
 * next record would be older than the N-th newest found so far, it is left alone.
 */
export async function readRecordsNewestFirst(tables: DynamoTables, query: RecordQuery): Promise<RecordPage> {
  const filtered = query.keyId !== undefined || (query.providers?.length ?? 0) > 0;
  const days = filtered && query.state !== 'running' ? await daysWithActivity(tables, query) : undefined;
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  const shards = query.memberId === undefined ? allRecordShards : memberShards(query.memberId);
  const expression = queryExpression(query);
  // A key, provider or state filter may keep few of a page's items: larger pages, fewer round trips.
  const selective = filtered || query.state !== undefined;
  const records: UsageRecord[] = [];
  for (const day of daysBetween(query.from, query.to)) {
    if (days !== undefined && !days.has(day)) continue;
    const wanted = limit + 1 - records.length;
    const pageSize =
      selective || !Number.isFinite(wanted) ? 1_000 : Math.max(25, Math.ceil((2 * wanted) / shards.length));
    const cursors: PartitionCursor[] = shards.map((shard) => ({
      partition: recordPartition(day, shard),
      items: [],
      next: undefined,
      done: false,
    }));
    let reading = cursors;
    while (reading.length > 0) {
      await Promise.all(reading.map((cursor) => readPage(tables, expression, cursor, pageSize)));
      const found = cursors.flatMap((cursor) => cursor.items).sort(newestFirst);
      const cutoff = found.length >= wanted ? found[wanted - 1]?.sk : undefined;
      reading = cursors.filter(
        (cursor) => !cursor.done && (cutoff === undefined || String(cursor.next?.['sk'] ?? '') > cutoff),
      );
    }
    const newest = cursors
      .flatMap((cursor) => cursor.items)
      .sort(newestFirst)
      .slice(0, wanted)
      .map(toUsageRecord);
    records.push(...newest);
    if (records.length > limit) return { records: records.slice(0, limit), more: true };
  }
  return { records, more: false };
}

const allRecordShards = Array.from({ length: recordShards }, (_, shard) => shard);

/** One partition's read so far: what it matched, and where its next page starts. */
interface PartitionCursor {
  partition: string;
  items: RecordItem[];
  next: Record<string, unknown> | undefined;
  done: boolean;
}

interface QueryExpression {
  filter: string | undefined;
  names: Record<string, string> | undefined;
  values: Record<string, unknown>;
}

/** The range and filters of a record query, as Query expressions (the partition is added per read). */
function queryExpression(query: RecordQuery): QueryExpression {
  const names: Record<string, string> = {};
  // `$` sorts right after `#`, so the upper bound closes every id of the last millisecond.
  const values: Record<string, unknown> = { ':from': query.from, ':to': `${query.to}$` };
  const filters: string[] = [];
  if (query.memberId !== undefined) {
    // A partition holds the records of a few members: the member's own are kept.
    filters.push('memberId = :memberId');
    values[':memberId'] = query.memberId;
  }
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
  return {
    filter: filters.length > 0 ? filters.join(' AND ') : undefined,
    names: Object.keys(names).length > 0 ? names : undefined,
    values,
  };
}

/** The next page of one partition, newest first. */
async function readPage(
  tables: DynamoTables,
  expression: QueryExpression,
  cursor: PartitionCursor,
  pageSize: number,
): Promise<void> {
  const page = await tables.client.send(
    new QueryCommand({
      TableName: tables.names.usage,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      FilterExpression: expression.filter,
      ExpressionAttributeNames: expression.names,
      ExpressionAttributeValues: { ...expression.values, ':pk': cursor.partition },
      ScanIndexForward: false,
      Limit: pageSize,
      ExclusiveStartKey: cursor.next,
    }),
  );
  cursor.items.push(...((page.Items ?? []) as RecordItem[]));
  cursor.next = page.LastEvaluatedKey;
  cursor.done = page.LastEvaluatedKey === undefined;
}
