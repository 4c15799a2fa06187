import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { VersionConflictError } from '../store-errors.ts';
import type { SettingsStore, TeamSettings } from '../store-port.ts';
import { getControlItem } from './control-reads.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';

const settingsKey = 'meta#settings';

/** The team's settings as one control item, updated with one conditional UpdateItem on its version. */
export function dynamoSettings(tables: DynamoTables): SettingsStore {
  const read = async (): Promise<TeamSettings> => {
    const item = await getControlItem<TeamSettings>(tables, settingsKey, true);
    return item ? { version: item.version, defaultPolicy: item.defaultPolicy } : { version: 1, defaultPolicy: {} };
  };
  return {
    get: read,
    async update(expectedVersion, defaultPolicy) {
      try {
        await tables.client.send(
          new UpdateCommand({
            TableName: tables.names.control,
            Key: { pk: settingsKey },
            UpdateExpression: 'SET #version = :next, defaultPolicy = :policy',
            // Absent settings are at version 1.
            ConditionExpression:
              expectedVersion === 1 ? 'attribute_not_exists(#version) OR #version = :expected' : '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: {
              ':next': expectedVersion + 1,
              ':policy': defaultPolicy,
              ':expected': expectedVersion,
            },
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new VersionConflictError('settings', await read());
        throw error;
      }
      return { version: expectedVersion + 1, defaultPolicy };
    },
  };
}
