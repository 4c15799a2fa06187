import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from './dynamo-client.ts';

/** The table of 0.1 usage records and its client. Nothing else in the store reads or writes it. */
export interface LegacyUsageTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * One usage record of the earlier engine generation (0.1), as stored. Metadata only: the import removes prompt and
 * answer bodies and credentials before a record gets here. Unknown token counts are `null`, never 0.
 */
export interface LegacyUsageRecord {
  /** `leg_` + a hash of the record's content, so the same line imported twice is the same item. */
  id: string;
  generation: '0.1';
  /** UTC ISO-8601. */
  timestamp: string;
  /** UTC day of `timestamp`, for whoever queries these records by period later. */
  day: string;
  requestId: string | null;
  keyId: string | null;
  memberId: string | null;
  provider: string;
  model: string;
  /** An HTTP status, or the outcome word the 0.1 engine wrote (such as "ok"). */
  status: number | string | null;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  durationMs: number | null;
  /** The line's other fields as JSON text (a string, so no value of an unknown shape can break the item). */
  raw: string;
}

export interface LegacyImportResult {
  /** Records written by this call. */
  imported: number;
  /** Records that were already stored (an earlier import of the same line), left untouched. */
  skipped: number;
}

/** Puts in flight at once: enough to import a batch quickly, few enough not to burst the table's write rate. */
const defaultConcurrency = 8;

/**
 * Stores records that are not stored yet, one conditional put each. BatchWriteItem was the other choice, but it
 * takes no condition: a second import would overwrite the first (and its `importedAt`) and could not say which
 * records were new. The SDK retries throttled puts with back-off; a put that still fails fails the call, and the
 * puts before it stay, which is safe because importing again skips them.
 */
export async function importLegacyUsageRecords(
  table: LegacyUsageTable,
  records: readonly LegacyUsageRecord[],
  importedAt: Date,
  concurrency = defaultConcurrency,
): Promise<LegacyImportResult> {
  const result: LegacyImportResult = { imported: 0, skipped: 0 };
  let next = 0;
  const worker = async () => {
    while (next < records.length) {
      const record = records[next++] as LegacyUsageRecord;
      if (await putIfAbsent(table, record, importedAt)) result.imported++;
      else result.skipped++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, records.length) }, worker));
  return result;
}

async function putIfAbsent(table: LegacyUsageTable, record: LegacyUsageRecord, importedAt: Date): Promise<boolean> {
  try {
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...record, importedAt: importedAt.toISOString() },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
