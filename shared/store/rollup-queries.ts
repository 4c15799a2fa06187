import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dayTotalSortPrefix, type RollupTable } from './rollup-store.ts';

/** One rollup item as `addToRollup` writes it: an hour's, or (without `hour`) the whole day's. */
export interface RollupItem {
  pk: string;
  sk: string;
  hour?: string;
  memberId: string;
  keyId: string;
  upstream: string;
  provider: string;
  model: string;
  requests: number;
  failed: number;
  charge: number;
  inputTokens: number;
  inputTokensReported: number;
  cachedInputTokens: number;
  cachedInputTokensReported: number;
  outputTokens: number;
  outputTokensReported: number;
}

export interface RollupDayQuery {
  /** `YYYY-MM-DD`, the partition. */
  day: string;
  /** First and last hour (`HH`, inclusive) of the day to read, or the day's totals. */
  hours: { first: string; last: string } | 'day-totals';
  memberId?: string | undefined;
  keyId?: string | undefined;
}

/**
 * The rollups of one UTC day, between two hours or the day's totals: one partition, a sort-key range (`HH#...`;
 * `$` sorts right after `#`, so `${last}$` closes the last hour) or the `total#` prefix. Member and key narrow
 * with a filter: they are not in the sort key's prefix, and a day of one team's rollups is small.
 */
export async function queryRollupDay(table: RollupTable, query: RollupDayQuery): Promise<RollupItem[]> {
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': `day#${query.day}` };
  let keyCondition: string;
  if (query.hours === 'day-totals') {
    keyCondition = 'pk = :pk AND begins_with(sk, :prefix)';
    values[':prefix'] = `${dayTotalSortPrefix}#`;
  } else {
    keyCondition = 'pk = :pk AND sk BETWEEN :from AND :to';
    values[':from'] = query.hours.first;
    values[':to'] = `${query.hours.last}$`;
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
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
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
