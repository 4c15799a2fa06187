import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../../async-work/map-with-concurrency.ts';
import { type ClosedRequest, closedRequestOf } from '../usage-records.ts';
import { type RecordItem, toUsageRecord } from './dynamo-records.ts';
import { rollupAddition, rollupItemWrites } from './dynamo-rollups.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { recordPartition } from './partition-keys.ts';

const writeConcurrency = 8;
const pageSize = 1_000;

/**
 * The mark a rollup item carries once the carried records of one record shard of its day are in it (`e00`…`e15`).
 * One shard's carried records of one day are folded in one go, so the mark stands for all of them.
 */
const carriedMark = (shard: number) => `e${String(shard).padStart(2, '0')}`;

/** What one partition's fold counted: its carried records, and those among them closed because they had died. */
export interface FoldedPartition {
  records: number;
  died: number;
}

/** The carried records of one record partition (a UTC day's shard), page by page. */
async function carriedRequests(
  tables: DynamoTables,
  day: string,
  shard: number,
): Promise<{ closed: ClosedRequest[]; died: number }> {
  const closed: ClosedRequest[] = [];
  let died = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.client.send(
      new QueryCommand({
        TableName: tables.names.usage,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'attribute_exists(carried)',
        ExpressionAttributeValues: { ':pk': recordPartition(day, shard) },
        // Carried a moment ago by the same migration: a consistent read sees every one of them.
        ConsistentRead: true,
        Limit: pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as RecordItem[]) {
      const request = closedRequestOf(toUsageRecord(item));
      if (request) closed.push(request);
      if (item.carried === 'died') died++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { closed, died };
}

/**
 * Adds the carried records of one record partition to the rollups: folded into one row per hour and identity and
 * one per day and identity, each added with one conditional write that also sets the partition's mark on the item.
 * An item that already has the mark has them already (an earlier, interrupted or concurrent fold of the same
 * partition), so it is left alone: each carried record is counted once, however often this runs. Live traffic
 * adds to the same items without looking at the marks (the stream's fold and the in-process folder both add), and
 * a rebuild sets their figures from every record, carried ones included, keeping the marks.
 *
 * The migration folds a partition only once every earlier record of its day has been carried, so no carried
 * record arrives in a partition after its fold. Returns what the partition holds of them.
 */
export async function foldCarriedPartition(tables: DynamoTables, day: string, shard: number): Promise<FoldedPartition> {
  const { closed, died } = await carriedRequests(tables, day, shard);
  const writes = rollupItemWrites(closed);
  const mark = carriedMark(shard);
  await mapWithConcurrency(writes, writeConcurrency, async ({ key, row, period }) => {
    const addition = rollupAddition(row, period);
    try {
      await tables.client.send(
        new UpdateCommand({
          TableName: tables.names.rollups,
          Key: key,
          UpdateExpression: `SET ${addition.set}, #mark = :marked ADD ${addition.add}`,
          ConditionExpression: 'attribute_not_exists(#mark)',
          ExpressionAttributeNames: { ...addition.names, '#mark': mark },
          ExpressionAttributeValues: { ...addition.values, ':marked': true },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  });
  return { records: closed.length, died };
}
