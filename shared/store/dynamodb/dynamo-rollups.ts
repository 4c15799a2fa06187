import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ClosedRequest, foldIntoRollups, rollupCounters } from '../usage-records.ts';
import type { DynamoTables } from './dynamo-tables.ts';

/** Sort-key prefix of a day's totals; letters sort after the hours' digits, so hour ranges never include them. */
export const dayTotalSortPrefix = 'total';

/**
 * Adds closed requests to their hourly rollups (partition: the UTC day; sort: hour, member, key, upstream,
 * provider, model) and to the day's total for the same identity (sort key `total#...`, after every hour).
 * Counters move with ADD, so concurrent settlements never lose an update. The day totals exist for the usage
 * view: a period of calendar days reads them, 24 times fewer items than the hours.
 */
export async function addToRollups(tables: DynamoTables, closed: readonly ClosedRequest[]): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (const row of foldIntoRollups(closed)) {
    const day = row.hour.slice(0, 10);
    const hour = row.hour.slice(11, 13);
    const values: Record<string, unknown> = {
      ':memberId': row.memberId,
      ':keyId': row.keyId,
      ':upstream': row.upstream,
      ':provider': row.provider,
      ':model': row.model,
    };
    for (const field of rollupCounters) values[`:${field}`] = row[field];
    const additions = rollupCounters.map((field) => `${field} :${field}`).join(', ');
    const identity = [row.memberId, row.keyId, row.upstream, row.provider, row.model];
    const assignments =
      'memberId = :memberId, keyId = :keyId, upstream = :upstream, provider = :provider, model = :model';
    writes.push(
      tables.client.send(
        new UpdateCommand({
          TableName: tables.names.rollups,
          Key: { pk: `day#${day}`, sk: [hour, ...identity].join('#') },
          UpdateExpression: `SET ${assignments}, #hour = :hour ADD ${additions}`,
          ExpressionAttributeNames: { '#hour': 'hour' },
          ExpressionAttributeValues: { ...values, ':hour': hour },
        }),
      ),
      tables.client.send(
        new UpdateCommand({
          TableName: tables.names.rollups,
          Key: { pk: `day#${day}`, sk: [dayTotalSortPrefix, ...identity].join('#') },
          UpdateExpression: `SET ${assignments} ADD ${additions}`,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }
  await Promise.all(writes);
}
