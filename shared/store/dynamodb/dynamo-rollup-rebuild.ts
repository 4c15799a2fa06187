import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../../async-work/map-with-concurrency.ts';
import type { RollupRebuild } from '../store-port.ts';
import { type ClosedRequest, closedRequestOf, type RollupRow, rollupCounters } from '../usage-records.ts';
import { readRecordsNewestFirst } from './dynamo-record-queries.ts';
import { rollupAddition, rollupItemWrites } from './dynamo-rollups.ts';
import { type DynamoTables, queryAll } from './dynamo-tables.ts';
import { allRollupGroups, dayRollupPartition, hourRollupPartition } from './partition-keys.ts';

const writeConcurrency = 8;
const itemName = (key: { pk: string; sk: string }) => `${key.pk}\n${key.sk}`;

/** The keys of a day's rollup items as stored now: its hours, and its totals in the month's partitions. */
async function storedKeys(tables: DynamoTables, day: string): Promise<{ pk: string; sk: string }[]> {
  const reads = allRollupGroups.flatMap((group) => [
    { pk: hourRollupPartition(day, group), from: '00', to: '23$' },
    { pk: dayRollupPartition(day.slice(0, 7), group), from: day.slice(8, 10), to: `${day.slice(8, 10)}$` },
  ]);
  const pages = await mapWithConcurrency(reads, writeConcurrency, (read) =>
    queryAll<{ pk: string; sk: string }>(tables, {
      TableName: tables.names.rollups,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': read.pk, ':from': read.from, ':to': read.to },
      ProjectionExpression: 'pk, sk',
    }),
  );
  return pages.flat();
}

/** Sets an item's counters to a row's figures (keeping its stream marks, so a late redelivery stays a no-op). */
function setRow(tables: DynamoTables, key: { pk: string; sk: string }, row: RollupRow, period: 'hour' | 'day') {
  const addition = rollupAddition(row, period);
  const counters = rollupCounters.map((counter) => `${counter} = :${counter}`).join(', ');
  return tables.client.send(
    new UpdateCommand({
      TableName: tables.names.rollups,
      Key: key,
      UpdateExpression: `SET ${addition.set}, ${counters}`,
      ExpressionAttributeNames: addition.names,
      ExpressionAttributeValues: addition.values,
    }),
  );
}

/**
 * Rebuilds whole UTC days of rollups from their records: every closed record of the day read (Queries of the
 * day's record partitions), folded into its hours and the day's totals, which are written with their figures as
 * counted; rows the records no longer support are deleted afterwards, so a reader never sees a day emptied.
 */
export async function rebuildRollups(
  tables: DynamoTables,
  range: { first: string; last: string },
): Promise<RollupRebuild> {
  const result: RollupRebuild = { days: 0, records: 0, rows: 0 };
  for (let at = Date.parse(range.first); at <= Date.parse(range.last); at += 86_400_000) {
    const day = new Date(at).toISOString().slice(0, 10);
    const page = await readRecordsNewestFirst(tables, {
      from: `${day}T00:00:00.000Z`,
      to: `${day}T23:59:59.999Z`,
      state: 'closed',
    });
    const closed = page.records.map(closedRequestOf).filter((request): request is ClosedRequest => !!request);
    const writes = rollupItemWrites(closed);
    const wanted = new Set(writes.map((write) => itemName(write.key)));
    await mapWithConcurrency(writes, writeConcurrency, (write) => setRow(tables, write.key, write.row, write.period));
    const stale = (await storedKeys(tables, day)).filter((key) => !wanted.has(itemName(key)));
    await mapWithConcurrency(stale, writeConcurrency, (key) =>
      tables.client.send(new DeleteCommand({ TableName: tables.names.rollups, Key: key })),
    );
    result.days++;
    result.records += closed.length;
    result.rows += writes.filter((write) => write.period === 'hour').length;
  }
  return result;
}
