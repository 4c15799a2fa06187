import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../../async-work/map-with-concurrency.ts';
import type { LegacyUsageStore } from '../store-port.ts';
import type { LegacyUsageRecord, StoredLegacyUsageRecord } from '../usage-records.ts';
import { conditionFragments } from './condition-fragments.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';

/** Puts in flight at once: enough to import a batch quickly, few enough not to burst the table's write rate. */
const importConcurrency = 8;

/**
 * The table of 0.1 usage records. Import stores records that are not stored yet, one conditional put each.
 * BatchWriteItem was the other choice, but it takes no condition: a second import would overwrite the first (and
 * its `importedAt`) and could not say which records were new. The SDK retries throttled puts with back-off; a put
 * that still fails fails the call, and the puts before it stay, which is safe because importing again skips them.
 */
export function dynamoLegacyUsage(tables: DynamoTables): LegacyUsageStore {
  async function putIfAbsent(record: LegacyUsageRecord, importedAt: Date): Promise<boolean> {
    try {
      await tables.client.send(
        new PutCommand({
          TableName: tables.names.legacyUsage,
          Item: { ...record, importedAt: importedAt.toISOString() } satisfies StoredLegacyUsageRecord,
          ConditionExpression: conditionFragments.legacyRecordAbsent,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  return {
    async importRecords(records, importedAt) {
      const stored = await mapWithConcurrency(records, importConcurrency, (record) => putIfAbsent(record, importedAt));
      const imported = stored.filter(Boolean).length;
      return { imported, skipped: records.length - imported };
    },

    /** A whole-table scan: only exports and upgrades list these records, never a request. */
    async list() {
      const records: StoredLegacyUsageRecord[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await tables.client.send(
          new ScanCommand({ TableName: tables.names.legacyUsage, ExclusiveStartKey: startKey, ConsistentRead: true }),
        );
        records.push(...((page.Items ?? []) as StoredLegacyUsageRecord[]));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return records.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.id.localeCompare(b.id));
    },
  };
}
