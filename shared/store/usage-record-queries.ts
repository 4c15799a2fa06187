import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageRecord, UsageTable } from './usage-record-store.ts';

/** Which time index to read: one member's (`member-time-index`) or one UTC day of the team's (`day-time-index`). */
export type RecordPartition = { index: 'member'; memberId: string } | { index: 'day'; day: string };

export interface RecordRange {
  /** Inclusive `startedAt` bounds, as stored (ISO with milliseconds). */
  from: string;
  to: string;
  keyId?: string | undefined;
  /** Providers to keep; empty or absent keeps all. */
  providers?: readonly string[] | undefined;
  runningOnly?: boolean;
  /** Items read per round trip (before the filter), so a caller that needs few does not read a whole page. */
  pageSize: number;
}

/**
 * The records of one partition within a time range, newest first, a page at a time: the caller stops as soon as
 * it has enough. Always a Query bounded by the range on the index sort key, never a scan.
 */
export async function* recordsNewestFirst(
  table: UsageTable,
  partition: RecordPartition,
  range: RecordRange,
): AsyncGenerator<UsageRecord[]> {
  const names: Record<string, string> = { '#startedAt': 'startedAt' };
  const values: Record<string, unknown> = { ':from': range.from, ':to': range.to };
  let keyCondition: string;
  if (partition.index === 'member') {
    keyCondition = 'memberId = :partition AND #startedAt BETWEEN :from AND :to';
    values[':partition'] = partition.memberId;
  } else {
    keyCondition = '#day = :partition AND #startedAt BETWEEN :from AND :to';
    names['#day'] = 'day';
    values[':partition'] = partition.day;
  }
  const filters: string[] = [];
  if (range.keyId !== undefined) {
    filters.push('keyId = :keyId');
    values[':keyId'] = range.keyId;
  }
  if (range.providers && range.providers.length > 0) {
    const placeholders = range.providers.map((provider, index) => {
      values[`:provider${index}`] = provider;
      return `:provider${index}`;
    });
    filters.push(`provider IN (${placeholders.join(', ')})`);
  }
  if (range.runningOnly) {
    filters.push('#state = :running');
    names['#state'] = 'state';
    values[':running'] = 'running';
  }
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: partition.index === 'member' ? 'member-time-index' : 'day-time-index',
        KeyConditionExpression: keyCondition,
        FilterExpression: filters.length > 0 ? filters.join(' AND ') : undefined,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: range.pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    yield (page.Items ?? []) as UsageRecord[];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
