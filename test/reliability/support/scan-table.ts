import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';

/** Every item of a table, page by page (a single Scan stops at 1 MB). Tests only: the gateway never scans. */
export async function scanTable(client: DynamoDBDocumentClient, tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ConsistentRead: true }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
