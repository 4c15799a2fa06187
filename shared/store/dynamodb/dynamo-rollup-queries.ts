import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../../async-work/map-with-concurrency.ts';
import type { RollupQuery } from '../store-port.ts';
import type { RollupRow } from '../usage-records.ts';
import { dayTotalSortPrefix } from './dynamo-rollups.ts';
import type { DynamoTables } from './dynamo-tables.ts';

/** One rollup item as `addToRollups` writes it: an hour's, or (without `hour`) the whole day's. */
export interface RollupItem extends Omit<RollupRow, 'hour'> {
  pk: string;
  sk: string;
  hour?: string;
}

/** Day partitions read at once: enough to hide round-trip latency, few enough not to burst the table. */
const dayReadConcurrency = 8;
const dayMs = 86_400_000;

interface DayRead {
  day: string;
  /** First and last hour (`HH`, inclusive) of the day, or the day's totals. */
  hours: { first: string; last: string } | 'day-totals';
}

function dayReads(query: RollupQuery): DayRead[] {
  const firstDay = query.first.slice(0, 10);
  const lastDay = query.last.slice(0, 10);
  const reads: DayRead[] = [];
  for (let at = Date.parse(firstDay); at <= Date.parse(lastDay); at += dayMs) {
    const day = new Date(at).toISOString().slice(0, 10);
    if (query.by === 'day') {
      reads.push({ day, hours: 'day-totals' });
      continue;
    }
    reads.push({
      day,
      hours: {
        first: day === firstDay ? query.first.slice(11, 13) : '00',
        last: day === lastDay ? query.last.slice(11, 13) : '23',
      },
    });
  }
  return reads;
}

/** The rollup rows of whole hours or whole days, one day partition per Query, a few days at a time. */
export async function readRollups(tables: DynamoTables, query: RollupQuery): Promise<RollupRow[]> {
  const days = await mapWithConcurrency(dayReads(query), dayReadConcurrency, (read) => queryDay(tables, query, read));
  return days.flat().map(toRollupRow);
}

function toRollupRow(item: RollupItem): RollupRow {
  return {
    // A day's total counts from the day's first hour, which is where a day bucket starts.
    hour: `${item.pk.slice('day#'.length)}T${item.hour ?? '00'}`,
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
 * One UTC day's partition: a sort-key range of hours (`HH#...`; `$` sorts right after `#`, so `${last}$` closes the
 * last hour) or the `total#` prefix. Member and key narrow with a filter: they are not in the sort key's prefix,
 * and a day of one team's rollups is small.
 */
async function queryDay(tables: DynamoTables, query: RollupQuery, read: DayRead): Promise<RollupItem[]> {
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': `day#${read.day}` };
  let keyCondition: string;
  if (read.hours === 'day-totals') {
    keyCondition = 'pk = :pk AND begins_with(sk, :prefix)';
    values[':prefix'] = `${dayTotalSortPrefix}#`;
  } else {
    keyCondition = 'pk = :pk AND sk BETWEEN :from AND :to';
    values[':from'] = read.hours.first;
    values[':to'] = `${read.hours.last}$`;
  }
  if (query.memberId !== undefined) {
    filters.push('memberId = :memberId');
    values[':memberId'] = query.memberId;
  }
  if (query.keyId !== undefined) {
    filters.push('keyId = :keyId');
    values[':keyId'] = query.keyId;
  }
  const items: RollupItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.client.send(
      new QueryCommand({
        TableName: tables.names.rollups,
        KeyConditionExpression: keyCondition,
        FilterExpression: filters.length > 0 ? filters.join(' AND ') : undefined,
        ExpressionAttributeValues: values,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...((page.Items ?? []) as RollupItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
