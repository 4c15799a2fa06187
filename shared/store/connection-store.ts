import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../http/gateway-error.ts';
import { type ConnectionItem, type ConnectionView, connectionKey, toConnectionView } from './control-items.ts';
import { type ControlTable, listControlItems } from './control-table.ts';
import { isConditionFailure } from './dynamo-client.ts';
import { newId } from './ids.ts';

export interface CreateConnectionInput extends Omit<ConnectionView, 'id' | 'enabled' | 'createdAt'> {
  secretName: (id: string) => string;
}

export async function createConnection(
  table: ControlTable,
  input: CreateConnectionInput,
  now: Date,
  storeCredential: (secretName: string) => Promise<void>,
): Promise<ConnectionItem> {
  const id = newId('con');
  const item: ConnectionItem = {
    ...connectionKey(id),
    kind: 'connection',
    id,
    provider: input.provider,
    wire: input.wire,
    baseUrl: input.baseUrl,
    models: input.models,
    upstream: input.upstream,
    enabled: true,
    createdAt: now.toISOString(),
    secretName: input.secretName(id),
  };
  await storeCredential(item.secretName);
  await table.client.send(
    new PutCommand({ TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  return item;
}

export async function listConnections(table: ControlTable): Promise<ConnectionItem[]> {
  const items = await listControlItems<ConnectionItem>(table, 'connection');
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

export async function setConnectionEnabled(table: ControlTable, id: string, enabled: boolean): Promise<ConnectionView> {
  try {
    const result = await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: connectionKey(id),
        UpdateExpression: 'SET enabled = :enabled',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':enabled': enabled },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toConnectionView(result.Attributes as ConnectionItem);
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('connection_not_found', `No connection has the id ${id}.`);
    throw error;
  }
}
