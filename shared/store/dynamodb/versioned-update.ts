import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFragments } from './condition-fragments.ts';
import type { DynamoTables } from './dynamo-tables.ts';
import { isConditionFailure } from './dynamo-tables.ts';

/** The version bump every write of an edited record makes (a record stored before versions counts as 1). */
export const versionBump = {
  expression: '#version = if_not_exists(#version, :one) + :one',
  names: { '#version': 'version' },
  values: { ':one': 1 },
} as const;

/**
 * ONE conditional UpdateItem: sets the given attributes (undefined ones are left alone) and bumps the version,
 * only if the item is still at `expectedVersion`. Returns the item as written, or undefined when the condition
 * failed (the item is absent or at another version: the caller reads it to tell which).
 */
export async function updateAtVersion<Item>(
  tables: DynamoTables,
  pk: string,
  expectedVersion: number,
  attributes: Record<string, unknown>,
): Promise<Item | undefined> {
  const changed = Object.entries(attributes).filter(([, value]) => value !== undefined);
  const names: Record<string, string> = { ...versionBump.names };
  const values: Record<string, unknown> = { ...versionBump.values, ':expected': expectedVersion };
  const assignments = changed.map(([attribute, value], index) => {
    names[`#a${index}`] = attribute;
    values[`:a${index}`] = value;
    return `#a${index} = :a${index}`;
  });
  try {
    const result = await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: { pk },
        UpdateExpression: `SET ${[...assignments, versionBump.expression].join(', ')}`,
        ConditionExpression: expectedVersion === 1 ? conditionFragments.atFirstVersion : conditionFragments.atVersion,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes as Item;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Raises a policy floor in a member's admission item to `version` (never lowers it): from this write on, an
 * admission made with a principal read before the change is refused as `policy_changed` on every instance. False
 * when the member has no admission item (nothing admits from it, then).
 */
export async function raisePolicyFloor(
  tables: DynamoTables,
  admissionPk: string,
  floor: { map: 'kv'; slot: string } | { map: 'pv' },
  version: number,
): Promise<boolean> {
  const send = (update: string, condition: string, names: Record<string, string>, values: Record<string, unknown>) =>
    tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: { pk: admissionPk },
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  try {
    if (floor.map === 'kv') {
      // A nested path needs its map: made once per member, the first time one of its keys changes.
      await send('SET #kv = if_not_exists(#kv, :empty)', 'attribute_exists(pk)', { '#kv': 'kv' }, { ':empty': {} });
    }
    const names: Record<string, string> =
      floor.map === 'pv' ? { '#floor': 'pv' } : { '#kv': 'kv', '#slot': floor.slot };
    const path = floor.map === 'pv' ? '#floor' : '#kv.#slot';
    const condition = conditionFragments.floorBelow.replaceAll('#floor', path);
    await send(`SET ${path} = :version`, condition, names, { ':version': version });
    return true;
  } catch (error) {
    // Absent item, or a later change raised the floor higher already.
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
