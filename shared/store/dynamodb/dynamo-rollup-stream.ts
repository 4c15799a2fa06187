import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type ClosedRequest,
  closedRequestOf,
  foldIntoRollups,
  type RollupRow,
  sumRollupRows,
} from '../usage-records.ts';
import { type RecordItem, toUsageRecord } from './dynamo-records.ts';
import { rollupAddition, rollupItemKeys } from './dynamo-rollups.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { shardOfPartition } from './partition-keys.ts';

/** One change of the records table, as its stream delivers it. */
export interface RecordChange {
  /** The stream record's sequence number: decimal digits, increasing in the order the changes were made. */
  sequenceNumber: string;
  oldImage: RecordItem | undefined;
  newImage: RecordItem | undefined;
}

/** A request that closed in one change, with where that change stands in its partition's stream. */
interface Closing {
  closed: ClosedRequest;
  /** The sequence number padded to DynamoDB's 40 digits, so that text order is number order. */
  position: string;
  /** The record partition's shard: each has its own marker on every rollup item. */
  shard: number;
}

const position = (sequenceNumber: string) => sequenceNumber.padStart(40, '0');
const markerName = (shard: number) => `q${String(shard).padStart(2, '0')}`;

/**
 * The closings of a batch: records whose state moved from running (or from nothing, when settlement wrote the
 * whole record) to completed or failed in that very change. A running record's write, or any later change of a
 * closed record, folds nothing; nor does a record the migration of the earlier layout carried in, which that
 * migration adds to the rollups itself (earlier-records-fold.ts), once, on every engine alike.
 */
export function closingsOf(changes: readonly RecordChange[]): Closing[] {
  const closings: Closing[] = [];
  for (const change of changes) {
    const { newImage, oldImage } = change;
    if (!newImage || newImage.state === 'running' || newImage.carried) continue;
    if (oldImage && oldImage.state !== 'running') continue;
    const closed = closedRequestOf(toUsageRecord(newImage));
    if (closed)
      closings.push({ closed, position: position(change.sequenceNumber), shard: shardOfPartition(newImage.pk) });
  }
  return closings;
}

/**
 * Folds a batch of the records stream into the rollups, safe to run again on any part of the same stream: the
 * consumer is retried on failure, its batch split in two, or resumed from a record, and none of it may count a
 * request twice. Each rollup item keeps, per record shard, the position of the last change folded into it
 * (`q00`…`q15`). Changes of one shard reach the consumer in order, one batch at a time, so every change at or before
 * that position is in the item already: a fold adds only later changes, in one conditional write that moves the
 * counters and the marker together. Returns how many requests it folded and how many writes that took.
 */
export async function foldStreamBatch(
  tables: DynamoTables,
  changes: readonly RecordChange[],
): Promise<{ folded: number; writes: number }> {
  const targets = new Map<string, { key: { pk: string; sk: string }; period: 'hour' | 'day'; closings: Closing[] }>();
  const closings = closingsOf(changes);
  for (const closing of closings) {
    const [row] = foldIntoRollups([closing.closed]);
    if (!row) continue;
    const keys = rollupItemKeys(row);
    for (const period of ['hour', 'day'] as const) {
      const key = keys[period];
      const name = `${key.pk}\n${key.sk}`;
      const target = targets.get(name) ?? { key, period, closings: [] };
      target.closings.push(closing);
      targets.set(name, target);
    }
  }
  let writes = 0;
  for (const target of targets.values())
    writes += await foldIntoItem(tables, target.key, target.period, target.closings);
  return { folded: closings.length, writes };
}

const attempts = 5;

async function foldIntoItem(
  tables: DynamoTables,
  key: { pk: string; sk: string },
  period: 'hour' | 'day',
  closings: readonly Closing[],
): Promise<number> {
  // Undefined until read: then the condition only asks that nothing of this batch is in the item yet.
  let markers: Record<string, string | undefined> | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const pending = closings.filter((closing) => {
      const marker = markers?.[markerName(closing.shard)];
      return marker === undefined || closing.position > marker;
    });
    if (pending.length === 0) return 0;
    const row: RollupRow = sumRollupRows(foldIntoRollups(pending.map((closing) => closing.closed)));
    const addition = rollupAddition(row, period);
    const names = { ...addition.names };
    const values = { ...addition.values };
    const conditions: string[] = [];
    const markerUpdates: string[] = [];
    for (const shard of new Set(pending.map((closing) => closing.shard))) {
      const positions = pending.filter((closing) => closing.shard === shard).map((closing) => closing.position);
      const name = markerName(shard);
      names[`#${name}`] = name;
      values[`:${name}Last`] = positions.reduce((a, b) => (a > b ? a : b));
      markerUpdates.push(`#${name} = :${name}Last`);
      const known = markers?.[name];
      if (markers === undefined) {
        values[`:${name}First`] = positions.reduce((a, b) => (a < b ? a : b));
        conditions.push(`(attribute_not_exists(#${name}) OR #${name} < :${name}First)`);
      } else if (known === undefined) {
        conditions.push(`attribute_not_exists(#${name})`);
      } else {
        values[`:${name}Known`] = known;
        conditions.push(`#${name} = :${name}Known`);
      }
    }
    try {
      await tables.client.send(
        new UpdateCommand({
          TableName: tables.names.rollups,
          Key: key,
          UpdateExpression: `SET ${addition.set}, ${markerUpdates.join(', ')} ADD ${addition.add}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return 1;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Some of this batch is in the item already (a retry), or another fold moved a marker: read where each stands.
      const read = await tables.client.send(
        new GetCommand({ TableName: tables.names.rollups, Key: key, ConsistentRead: true }),
      );
      markers = Object.fromEntries(
        Object.entries(read.Item ?? {}).filter(([name]) => /^q\d{2}$/.test(name)) as [string, string][],
      );
    }
  }
  throw new Error(`the rollup item ${key.pk} ${key.sk} kept changing under ${attempts} folds`);
}

/** One record of a Lambda DynamoDB-stream event, as much of it as the fold reads. */
export interface StreamEventRecord {
  dynamodb?: {
    SequenceNumber?: string;
    NewImage?: Record<string, unknown>;
    OldImage?: Record<string, unknown>;
  };
}

const imageOf = (image: Record<string, unknown> | undefined) =>
  image && (unmarshall(image as Record<string, AttributeValue>) as RecordItem);

/** A Lambda event of the records table's stream, as the changes `foldStreamBatch` takes. */
export function recordChangesOf(records: readonly StreamEventRecord[]): RecordChange[] {
  return records.flatMap((record) => {
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (!sequenceNumber) return [];
    return [
      {
        sequenceNumber,
        oldImage: imageOf(record.dynamodb?.OldImage),
        newImage: imageOf(record.dynamodb?.NewImage),
      },
    ];
  });
}
