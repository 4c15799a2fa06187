import { BatchGetCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../../async-work/map-with-concurrency.ts';
import { conditionFragments } from './condition-fragments.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';

/** Writes a control item whose key is not taken yet; false when it is (nothing is written then). */
export async function putControlItemOnce<Item extends { pk: string }>(
  tables: DynamoTables,
  item: Item,
): Promise<boolean> {
  try {
    await tables.client.send(
      new PutCommand({
        TableName: tables.names.control,
        Item: item,
        ConditionExpression: conditionFragments.controlItemAbsent,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getControlItem<T>(tables: DynamoTables, pk: string, consistent = false): Promise<T | undefined> {
  const result = await tables.client.send(
    new GetCommand({ TableName: tables.names.control, Key: { pk }, ConsistentRead: consistent }),
  );
  return result.Item as T | undefined;
}

/**
 * Lists the items of one kind: the keys-only index gives the primary keys, a batch read the items. The index
 * projects keys only so that the constant admission writes to member items never replicate into it.
 */
export async function listControlItems<T>(tables: DynamoTables, kind: string): Promise<T[]> {
  const tableName = tables.names.control;
  const keys: { pk: string }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'kind-index',
        KeyConditionExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':kind': kind },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) keys.push({ pk: String(item.pk) });
    startKey = page.LastEvaluatedKey;
  } while (startKey);

  return getControlItems<T>(
    tables,
    keys.map((key) => key.pk),
  );
}

/**
 * The control items of these keys that exist, in no particular order: batch reads of 100, up to ten at once (a page
 * of 200 or a filtered stretch of 1,000 costs the time of one or two batch reads, not of ten in a row).
 */
export async function getControlItems<T>(
  tables: DynamoTables,
  pks: readonly string[],
  consistent = false,
): Promise<T[]> {
  const tableName = tables.names.control;
  const batches: { pk: string }[][] = [];
  for (let offset = 0; offset < pks.length; offset += 100) {
    batches.push(pks.slice(offset, offset + 100).map((pk) => ({ pk })));
  }
  const found = await mapWithConcurrency(batches, 10, async (keys) => {
    const items: T[] = [];
    let pending: { pk: string }[] | undefined = keys;
    while (pending && pending.length > 0) {
      const batch = await tables.client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      items.push(...((batch.Responses?.[tableName] ?? []) as T[]));
      pending = batch.UnprocessedKeys?.[tableName]?.Keys as { pk: string }[] | undefined;
    }
    return items;
  });
  return found.flat();
}
