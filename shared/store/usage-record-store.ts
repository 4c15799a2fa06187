import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from './dynamo-client.ts';

export interface UsageTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export type RecordState = 'running' | 'completed' | 'failed';
export type AccountingSource = 'measured' | 'conservative';

/** What is known of a request from admission on. Metadata only: never a prompt, an answer or a credential. */
export interface RunningRecord {
  id: string;
  memberId: string;
  keyId: string;
  provider: string;
  model: string;
  connectionId: string;
  upstream: string;
  wire: string;
  stream: boolean;
  startedAt: string;
  /** UTC day of `startedAt`, the partition of the team-wide time index. */
  day: string;
  reserved: number;
  state: 'running';
}

export interface RecordOutcome {
  state: Exclude<RecordState, 'running'>;
  status: number;
  endedAt: string;
  durationMs: number;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  charge: number;
  source: AccountingSource;
}

export type UsageRecord = Omit<RunningRecord, 'state'> & ({ state: 'running' } | RecordOutcome);

export async function getUsageRecord(table: UsageTable, id: string): Promise<UsageRecord | undefined> {
  const result = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: { id }, ConsistentRead: true }),
  );
  return result.Item as UsageRecord | undefined;
}

export async function putRunningRecord(table: UsageTable, record: RunningRecord): Promise<void> {
  try {
    await table.client.send(
      new PutCommand({ TableName: table.tableName, Item: record, ConditionExpression: 'attribute_not_exists(id)' }),
    );
  } catch (error) {
    // Already written: the reaper may have closed this request first. Closing is conditional, so nothing is lost.
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Closes a record once. When the running record never arrived (its write failed or lost a race), the whole
 * record is written from the outcome so every admitted request still ends with exactly one closed record.
 */
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
// Written only where the running record is missing, so a late running write cannot change what admission said.
const admissionAssignments = [
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

export async function closeRecord(table: UsageTable, record: RunningRecord, outcome: RecordOutcome): Promise<boolean> {
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { id: record.id },
        UpdateExpression: `SET ${closingAssignments}`,
        ConditionExpression: 'attribute_not_exists(id) OR #state = :running',
        ExpressionAttributeNames: {
          '#state': 'state',
          '#status': 'status',
          '#source': 'source',
          '#stream': 'stream',
          '#day': 'day',
        },
        ExpressionAttributeValues: {
          ':running': 'running',
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
