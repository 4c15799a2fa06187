import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageRecordStore } from '../store-port.ts';
import type { ClosedRequest, RecordLocator, RunningRecord, UsageRecord } from '../usage-records.ts';
import { conditionFragments } from './condition-fragments.ts';
import { readRecordsNewestFirst } from './dynamo-record-queries.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { recordKey } from './partition-keys.ts';

/**
 * A record as this engine stores it: the record, under its partition and sort keys; `carried` marks one that the
 * migration of the earlier layout wrote (its rollups are that migration's to add, not the stream's), as it was
 * (`closed`) or closed by the migration because its process had died (`died`).
 */
export type RecordItem = UsageRecord & { pk: string; sk: string; carried?: 'closed' | 'died' };

export function toUsageRecord(item: RecordItem): UsageRecord {
  const { pk: _pk, sk: _sk, carried: _carried, ...record } = item;
  return record as UsageRecord;
}

// Closing sets the outcome...
const outcomeAssignments = [
  '#state = :state',
  '#status = :status',
  'endedAt = :endedAt',
  'durationMs = :durationMs',
  'inputTokens = :inputTokens',
  'cachedInputTokens = :cachedInputTokens',
  'outputTokens = :outputTokens',
  'charge = :charge',
  '#source = :source',
];
// ...and what admission knew only where the running record is missing, so a late running write cannot change it.
const admissionAssignments = [
  'id',
  'memberId',
  'keyId',
  'provider',
  'model',
  'connectionId',
  'upstream',
  'wire',
  '#stream',
  'startedAt',
  '#day',
  'reserved',
].map((field) => `${field} = if_not_exists(${field}, :${field.replace('#', '')})`);
const closingAssignments = [...outcomeAssignments, ...admissionAssignments].join(', ');

/**
 * Closes a record once. When the running record never arrived (its write failed or lost a race), the whole
 * record is written from the outcome so every admitted request still ends with exactly one closed record.
 */
export async function closeRecord(tables: DynamoTables, { record, outcome }: ClosedRequest): Promise<boolean> {
  try {
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.usage,
        Key: recordKey(record),
        UpdateExpression: `SET ${closingAssignments}`,
        ConditionExpression: conditionFragments.recordOpen,
        ExpressionAttributeNames: {
          '#state': 'state',
          '#status': 'status',
          '#source': 'source',
          '#stream': 'stream',
          '#day': 'day',
        },
        ExpressionAttributeValues: {
          ':running': 'running',
          ':id': record.id,
          ':state': outcome.state,
          ':status': outcome.status,
          ':endedAt': outcome.endedAt,
          ':durationMs': outcome.durationMs,
          ':inputTokens': outcome.inputTokens,
          ':cachedInputTokens': outcome.cachedInputTokens,
          ':outputTokens': outcome.outputTokens,
          ':charge': outcome.charge,
          ':source': outcome.source,
          ':memberId': record.memberId,
          ':keyId': record.keyId,
          ':provider': record.provider,
          ':model': record.model,
          ':connectionId': record.connectionId,
          ':upstream': record.upstream,
          ':wire': record.wire,
          ':stream': record.stream,
          ':startedAt': record.startedAt,
          ':day': record.day,
          ':reserved': record.reserved,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function putRunningRecord(tables: DynamoTables, record: RunningRecord): Promise<void> {
  try {
    await tables.client.send(
      new PutCommand({
        TableName: tables.names.usage,
        Item: { ...recordKey(record), ...record } satisfies RecordItem,
        ConditionExpression: conditionFragments.recordAbsent,
      }),
    );
  } catch (error) {
    // Already written: settlement may have closed this request first. Closing is conditional: nothing is lost.
    if (!isConditionFailure(error)) throw error;
  }
}

export async function getRecord(tables: DynamoTables, locator: RecordLocator): Promise<UsageRecord | undefined> {
  const result = await tables.client.send(
    new GetCommand({ TableName: tables.names.usage, Key: recordKey(locator), ConsistentRead: true }),
  );
  return result.Item && toUsageRecord(result.Item as RecordItem);
}

export function dynamoRecords(tables: DynamoTables): UsageRecordStore {
  return {
    putRunning: (record) => putRunningRecord(tables, record),
    close: (closed) => closeRecord(tables, closed),
    get: (locator) => getRecord(tables, locator),
    newest: (query) => readRecordsNewestFirst(tables, query),
  };
}
