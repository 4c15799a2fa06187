import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';

/** The control table and its client, as every store in this folder needs them. */
export interface ControlTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export async function getControlItem<T>(table: ControlTable, pk: string, consistent = false): Promise<T | undefined> {
  const result = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: { pk }, ConsistentRead: consistent }),
  );
  return result.Item as T | undefined;
}

/**
 * Lists the items of one kind: the keys-only index gives the primary keys, a batch read the items. The index
 * projects keys only so that the constant admission writes to member items never replicate into it.
 */
export async function listControlItems<T>(table: ControlTable, kind: string): Promise<T[]> {
  const keys: { pk: string }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
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

  const items: T[] = [];
  for (let offset = 0; offset < keys.length; offset += 100) {
    let pending: { pk: string }[] | undefined = keys.slice(offset, offset + 100);
    while (pending && pending.length > 0) {
      const batch = await table.client.send(
        new BatchGetCommand({ RequestItems: { [table.tableName]: { Keys: pending } } }),
      );
      items.push(...((batch.Responses?.[table.tableName] ?? []) as T[]));
      pending = batch.UnprocessedKeys?.[table.tableName]?.Keys as { pk: string }[] | undefined;
    }
  }
  return items;
}
