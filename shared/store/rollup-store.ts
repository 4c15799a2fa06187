import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordOutcome, RunningRecord } from './usage-record-store.ts';

export interface RollupTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * Adds one closed request to its hourly rollup (partition: the UTC day; sort: hour, member, key, upstream,
 * provider, model). Counters move with ADD, so concurrent settlements never lose an update. Each token figure
 * comes with the count of requests that reported it, so totals can say "from 98 of 100 requests".
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
  await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: {
        pk: `day#${record.day}`,
        sk: [hour, record.memberId, record.keyId, record.upstream, record.provider, record.model].join('#'),
      },
      UpdateExpression: `SET memberId = :memberId, keyId = :keyId, upstream = :upstream, provider = :provider, model = :model, #hour = :hour ADD ${additions.join(', ')}`,
      ExpressionAttributeNames: { '#hour': 'hour' },
      ExpressionAttributeValues: values,
    }),
  );
}
