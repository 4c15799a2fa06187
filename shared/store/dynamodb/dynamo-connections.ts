import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ConnectionItem, toConnectionView } from '../control-items.ts';
import { StoreConflictError, StoreNotFoundError } from '../store-errors.ts';
import type { ConnectionStore } from '../store-port.ts';
import { conditionFragments } from './condition-fragments.ts';
import { type ConnectionControlItem, connectionKey, toConnection } from './control-item-shapes.ts';
import { listControlItems, putControlItemOnce } from './control-reads.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';

export async function listConnections(tables: DynamoTables): Promise<ConnectionItem[]> {
  const items = await listControlItems<ConnectionControlItem>(tables, 'connection');
  return items.map(toConnection).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

export function dynamoConnections(tables: DynamoTables): ConnectionStore {
  const tableName = tables.names.control;
  return {
    async create(connection) {
      const item: ConnectionControlItem = { ...connectionKey(connection.id), kind: 'connection', ...connection };
      if (!(await putControlItemOnce(tables, item))) {
        throw new StoreConflictError('exists', `A connection has the id ${connection.id} already.`);
      }
    },

    list: () => listConnections(tables),

    async setEnabled(id, enabled) {
      try {
        const result = await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: connectionKey(id),
            UpdateExpression: 'SET enabled = :enabled',
            ConditionExpression: conditionFragments.controlItemExists,
            ExpressionAttributeValues: { ':enabled': enabled },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toConnectionView(toConnection(result.Attributes as ConnectionControlItem));
      } catch (error) {
        if (isConditionFailure(error)) throw new StoreNotFoundError('connection', `No connection has the id ${id}.`);
        throw error;
      }
    },
  };
}
