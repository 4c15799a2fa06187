import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { type TableDefinition, type TableLogicalName, tableDefinitions } from '../table-definitions.ts';

/** Creates a table from its shared definition unless it exists; the local host calls this at every start. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  definition: TableDefinition,
): Promise<void> {
  const attributeNames = new Set<string>([definition.partitionKey]);
  if (definition.sortKey) attributeNames.add(definition.sortKey);
  for (const index of definition.indexes) {
    attributeNames.add(index.partitionKey);
    if (index.sortKey) attributeNames.add(index.sortKey);
  }
  const attributes: AttributeDefinition[] = [...attributeNames].map((name) => ({
    AttributeName: name,
    AttributeType: 'S',
  }));
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributes,
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          ...(definition.sortKey ? [{ AttributeName: definition.sortKey, KeyType: 'RANGE' as const }] : []),
        ],
        ...(definition.indexes.length > 0
          ? {
              GlobalSecondaryIndexes: definition.indexes.map((index) => ({
                IndexName: index.name,
                KeySchema: [
                  { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
                  ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
                ],
                Projection: { ProjectionType: index.projection },
              })),
            }
          : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await waitUntilActive(client, tableName);
}

async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const description = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (description.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`table ${tableName} did not become active`);
}

/** Every table of the shared definitions, under the given names (a local host or a test picks its own). */
export async function ensureTables(
  client: DynamoDBClient,
  tableNames: Readonly<Record<TableLogicalName, string>>,
): Promise<void> {
  for (const definition of tableDefinitions) await ensureTable(client, tableNames[definition.logicalName], definition);
}
