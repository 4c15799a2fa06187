import { mapWithConcurrency } from '../../async-work/map-with-concurrency.ts';
import type { RollupQuery } from '../store-port.ts';
import type { RollupRow } from '../usage-records.ts';
import { type DynamoTables, queryAll } from './dynamo-tables.ts';
import { allRollupGroups, dayRollupPartition, hourRollupPartition, rollupGroupOf } from './partition-keys.ts';

/** One rollup item as `addToRollups` writes it: an hour's (with `hour`, `HH`) or a day's total (with `day`). */
export interface RollupItem extends Omit<RollupRow, 'hour'> {
  pk: string;
  sk: string;
  hour?: string;
  day?: string;
}

/** Partitions read at once: enough to hide round-trip latency, few enough not to burst the table. */
const partitionReadConcurrency = 8;
const dayMs = 86_400_000;

interface PartitionRead {
  pk: string;
  /** Inclusive sort-key prefixes: hours `HH` of a day, or days `DD` of a month. */
  first: string;
  last: string;
}

/** The UTC days from `first` to `last` (`YYYY-MM-DD`), oldest first. */
function daysFrom(first: string, last: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(first); at <= Date.parse(last); at += dayMs)
    days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/** Every partition that can hold rows of the query: per day (hours) or per month (days), per member group. */
function partitionReads(query: RollupQuery): PartitionRead[] {
  const groups = query.memberId === undefined ? allRollupGroups : [rollupGroupOf(query.memberId)];
  const firstDay = query.first.slice(0, 10);
  const lastDay = query.last.slice(0, 10);
  const reads: PartitionRead[] = [];
  if (query.by === 'hour') {
    for (const day of daysFrom(firstDay, lastDay)) {
      const first = day === firstDay ? query.first.slice(11, 13) : '00';
      const last = day === lastDay ? query.last.slice(11, 13) : '23';
      for (const group of groups) reads.push({ pk: hourRollupPartition(day, group), first, last });
    }
    return reads;
  }
  const months = [...new Set(daysFrom(firstDay, lastDay).map((day) => day.slice(0, 7)))];
  for (const month of months) {
    const first = month === firstDay.slice(0, 7) ? firstDay.slice(8, 10) : '01';
    const last = month === lastDay.slice(0, 7) ? lastDay.slice(8, 10) : '31';
    for (const group of groups) reads.push({ pk: dayRollupPartition(month, group), first, last });
  }
  return reads;
}

/** The rollup rows of whole hours or whole days: a few partitions per day (hours) or per month (days). */
export async function readRollups(tables: DynamoTables, query: RollupQuery): Promise<RollupRow[]> {
  const parts = await mapWithConcurrency(partitionReads(query), partitionReadConcurrency, (read) =>
    queryPartition(tables, query, read),
  );
  return parts.flat().map(toRollupRow);
}

export function toRollupRow(item: RollupItem): RollupRow {
  return {
    // A day's total counts from the day's first hour, which is where a day bucket starts.
    hour: item.day !== undefined ? `${item.day}T00` : `${item.pk.slice(2, 12)}T${item.hour ?? '00'}`,
    memberId: item.memberId,
    keyId: item.keyId,
    upstream: item.upstream,
    provider: item.provider,
    model: item.model,
    requests: item.requests ?? 0,
    failed: item.failed ?? 0,
    charge: item.charge ?? 0,
    inputTokens: item.inputTokens ?? 0,
    inputTokensReported: item.inputTokensReported ?? 0,
    cachedInputTokens: item.cachedInputTokens ?? 0,
    cachedInputTokensReported: item.cachedInputTokensReported ?? 0,
    outputTokens: item.outputTokens ?? 0,
    outputTokensReported: item.outputTokensReported ?? 0,
  };
}

/**
 * One partition's rows in a sort-key range (`$` sorts right after `#`, so `${last}$` closes the last hour or day).
 * Member and key narrow with a filter: a group's partition holds the rows of a few members.
 */
async function queryPartition(tables: DynamoTables, query: RollupQuery, read: PartitionRead): Promise<RollupItem[]> {
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': read.pk, ':from': read.first, ':to': `${read.last}$` };
  if (query.memberId !== undefined) {
    filters.push('memberId = :memberId');
    values[':memberId'] = query.memberId;
  }
  if (query.keyId !== undefined) {
    filters.push('keyId = :keyId');
    values[':keyId'] = query.keyId;
  }
  return queryAll<RollupItem>(tables, {
    TableName: tables.names.rollups,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    FilterExpression: filters.length > 0 ? filters.join(' AND ') : undefined,
    ExpressionAttributeValues: values,
  });
}
