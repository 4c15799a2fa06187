import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordOutcome, RunningRecord } from './usage-record-store.ts';

export interface RollupTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * Adds one closed request to its hourly rollup (partition: the UTC day; sort: hour, member, key, upstream,
 * provider, model) and to the day's total for the same member, key, upstream, provider and model (sort key
 * `total#...`, after every hour). Counters move with ADD, so concurrent settlements never lose an update. Each
 * token figure comes with the count of requests that reported it, so totals can say "from 98 of 100 requests".
 * The day totals exist for the usage view: a period of calendar days reads them, 24 times fewer items than
 * the hours, which keeps 60 days of a busy team fast.
 */
export async function addToRollup(table: RollupTable, record: RunningRecord, outcome: RecordOutcome): Promise<void> {
  const hour = record.startedAt.slice(11, 13);
  const values: Record<string, unknown> = {
    ':one': 1,
    ':failed': outcome.state === 'failed' ? 1 : 0,
    ':charge': outcome.charge,
    ':memberId': record.memberId,
    ':keyId': record.keyId,
    ':upstream': record.upstream,
    ':provider': record.provider,
    ':model': record.model,
    ':hour': hour,
  };
  const additions = ['requests :one', 'failed :failed', 'charge :charge'];
  for (const [field, value] of [
    ['inputTokens', outcome.inputTokens],
    ['cachedInputTokens', outcome.cachedInputTokens],
    ['outputTokens', outcome.outputTokens],
  ] as const) {
    values[`:${field}`] = value ?? 0;
    values[`:${field}Reported`] = value === null ? 0 : 1;
    additions.push(`${field} :${field}`, `${field}Reported :${field}Reported`);
  }
  const identity = [record.memberId, record.keyId, record.upstream, record.provider, record.model];
  const assignments =
    'memberId = :memberId, keyId = :keyId, upstream = :upstream, provider = :provider, model = :model';
  const { ':hour': _hourValue, ...dayValues } = values;
  await Promise.all([
    table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: `day#${record.day}`, sk: [hour, ...identity].join('#') },
        UpdateExpression: `SET ${assignments}, #hour = :hour ADD ${additions.join(', ')}`,
        ExpressionAttributeNames: { '#hour': 'hour' },
        ExpressionAttributeValues: values,
      }),
    ),
    table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: `day#${record.day}`, sk: [dayTotalSortPrefix, ...identity].join('#') },
        UpdateExpression: `SET ${assignments} ADD ${additions.join(', ')}`,
        ExpressionAttributeValues: dayValues,
      }),
    ),
  ]);
}

/** Sort-key prefix of a day's totals; letters sort after the hours' digits, so hour ranges never include them. */
export const dayTotalSortPrefix = 'total';
