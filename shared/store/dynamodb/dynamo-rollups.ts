import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type ClosedRequest,
  foldIntoRollups,
  type RollupRow,
  rollupCounters,
  sumRollupRows,
} from '../usage-records.ts';
import type { DynamoTables } from './dynamo-tables.ts';
import { dayRollupPartition, hourRollupPartition, rollupGroupOf } from './partition-keys.ts';

/** The identity of a rollup row, in the order its sort key spells it. */
const identityOf = (row: Omit<RollupRow, 'hour'>) => [row.memberId, row.keyId, row.upstream, row.provider, row.model];

/**
 * The two items one rollup row (an hour of one identity) moves: its hour's, in the day's partition of the member's
 * group (sort key `HH#identity`), and its day's total, in the month's partition (sort key `DD#identity`), which a
 * period of calendar days reads instead of 24 hours each.
 */
export function rollupItemKeys(row: RollupRow): { hour: { pk: string; sk: string }; day: { pk: string; sk: string } } {
  const day = row.hour.slice(0, 10);
  const group = rollupGroupOf(row.memberId);
  const identity = identityOf(row);
  return {
    hour: { pk: hourRollupPartition(day, group), sk: [row.hour.slice(11, 13), ...identity].join('#') },
    day: { pk: dayRollupPartition(day.slice(0, 7), group), sk: [day.slice(8, 10), ...identity].join('#') },
  };
}

/** One rollup item's share of some closed requests: its key, the row, and whether it is an hour's or a day's. */
export interface RollupItemWrite {
  key: { pk: string; sk: string };
  row: RollupRow;
  period: 'hour' | 'day';
}

/**
 * The rollup items some closed requests move, each once: an hour's item per hour and identity, and a day's item
 * per day and identity holding the sum of its hours.
 */
export function rollupItemWrites(closed: readonly ClosedRequest[]): RollupItemWrite[] {
  const hours = foldIntoRollups(closed);
  const days = new Map<string, RollupRow[]>();
  for (const row of hours) {
    const key = rollupItemKeys(row).day;
    const name = `${key.pk}\n${key.sk}`;
    days.set(name, [...(days.get(name) ?? []), row]);
  }
  return [
    ...hours.map((row) => ({ key: rollupItemKeys(row).hour, row, period: 'hour' as const })),
    ...[...days.values()].map((rows) => {
      const row = sumRollupRows(rows);
      return { key: rollupItemKeys(row).day, row, period: 'day' as const };
    }),
  ];
}

/**
 * The parts of an UpdateItem that add a row's counters to an item (creating it with its identity when new).
 * Counters move with ADD, so concurrent folds never lose an update.
 */
export function rollupAddition(row: RollupRow, period: 'hour' | 'day') {
  const values: Record<string, unknown> = {
    ':memberId': row.memberId,
    ':keyId': row.keyId,
    ':upstream': row.upstream,
    ':provider': row.provider,
    ':model': row.model,
    ':period': period === 'hour' ? row.hour.slice(11, 13) : row.hour.slice(0, 10),
  };
  for (const field of rollupCounters) values[`:${field}`] = row[field];
  return {
    set: 'memberId = :memberId, keyId = :keyId, upstream = :upstream, provider = :provider, model = :model, #period = :period',
    add: rollupCounters.map((field) => `${field} :${field}`).join(', '),
    names: { '#period': period === 'hour' ? 'hour' : 'day' } as Record<string, string>,
    values,
  };
}

/**
 * Adds closed requests to their rollups: folded first (one row per hour and identity, however many requests), then
 * two ADDs per row. What the in-process folder calls on one machine; the stream consumer on AWS goes through
 * `foldStreamBatch`, which adds the same rows with its redelivery guard.
 */
export async function addToRollups(tables: DynamoTables, closed: readonly ClosedRequest[]): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (const row of foldIntoRollups(closed)) {
    const keys = rollupItemKeys(row);
    for (const period of ['hour', 'day'] as const) {
      const addition = rollupAddition(row, period);
      writes.push(
        tables.client.send(
          new UpdateCommand({
            TableName: tables.names.rollups,
            Key: keys[period],
            UpdateExpression: `SET ${addition.set} ADD ${addition.add}`,
            ExpressionAttributeNames: addition.names,
            ExpressionAttributeValues: addition.values,
          }),
        ),
      );
    }
  }
  await Promise.all(writes);
}
