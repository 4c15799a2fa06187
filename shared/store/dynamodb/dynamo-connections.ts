import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ConnectionItem, toConnectionView } from '../control-items.ts';
import { StoreConflictError, StoreNotFoundError, VersionConflictError } from '../store-errors.ts';
import type { ConnectionStore } from '../store-port.ts';
import { conditionFragments } from './condition-fragments.ts';
import { type ConnectionControlItem, connectionKey, toConnection } from './control-item-shapes.ts';
import { getControlItem, listControlItems, putControlItemOnce } from './control-reads.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { updateAtVersion, versionBump } from './versioned-update.ts';

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

    async get(id) {
      const item = await getControlItem<ConnectionControlItem>(tables, connectionKey(id).pk, true);
      return item && toConnection(item);
    },

    async update(id, expectedVersion, changes) {
      const written = await updateAtVersion<ConnectionControlItem>(tables, connectionKey(id).pk, expectedVersion, {
        ...changes,
      });
      if (written) return toConnection(written);
      const current = await getControlItem<ConnectionControlItem>(tables, connectionKey(id).pk, true);
      if (!current) throw new StoreNotFoundError('connection', `No connection has the id ${id}.`);
      throw new VersionConflictError('connection', toConnectionView(toConnection(current)));
    },

    async setEnabled(id, enabled) {
      try {
        const result = await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: connectionKey(id),
            UpdateExpression: `SET enabled = :enabled, ${versionBump.expression}`,
            ConditionExpression: conditionFragments.controlItemExists,
            ExpressionAttributeNames: versionBump.names,
            ExpressionAttributeValues: { ':enabled': enabled, ...versionBump.values },
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
