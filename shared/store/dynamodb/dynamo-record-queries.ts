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
 * day by day, newest first, each day's partitions of the member (or of the whole team) read at once and merged.
 * Within a day, the newest N overall are among the newest N of each partition, so each partition is read only until
 * it has one more than the limit still wants.
 */
export async function readRecordsNewestFirst(tables: DynamoTables, query: RecordQuery): Promise<RecordPage> {
  const filtered = query.keyId !== undefined || (query.providers?.length ?? 0) > 0;
  const days = filtered && query.state !== 'running' ? await daysWithActivity(tables, query) : undefined;
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  const shards = query.memberId === undefined ? allRecordShards : memberShards(query.memberId);
  const records: UsageRecord[] = [];
  for (const day of daysBetween(query.from, query.to)) {
    if (days !== undefined && !days.has(day)) continue;
    const wanted = limit + 1 - records.length;
    const partitions = await Promise.all(
      shards.map((shard) => queryPartition(tables, recordPartition(day, shard), query, wanted)),
    );
    const newest = partitions.flat().sort(newestFirst).slice(0, wanted).map(toUsageRecord);
    records.push(...newest);
    if (records.length > limit) return { records: records.slice(0, limit), more: true };
  }
  return { records, more: false };
}

const allRecordShards = Array.from({ length: recordShards }, (_, shard) => shard);

/** Up to `wanted` matching records of one partition in the range, newest first (all of them when unlimited). */
async function queryPartition(
  tables: DynamoTables,
  partition: string,
  query: RecordQuery,
  wanted: number,
): Promise<RecordItem[]> {
  const names: Record<string, string> = {};
  // `$` sorts right after `#`, so the upper bound closes every id of the last millisecond.
  const values: Record<string, unknown> = { ':pk': partition, ':from': query.from, ':to': `${query.to}$` };
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
  const items: RecordItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.client.send(
      new QueryCommand({
        TableName: tables.names.usage,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        FilterExpression: filters.length > 0 ? filters.join(' AND ') : undefined,
        ExpressionAttributeNames: Object.keys(names).length > 0 ? names : undefined,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        // Unfiltered, exactly enough items; filtered, larger pages so a selective filter needs few round trips.
        Limit: filters.length > 0 || !Number.isFinite(wanted) ? 1_000 : wanted,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...((page.Items ?? []) as RecordItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < wanted);
  return items;
}
