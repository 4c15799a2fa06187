import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyAdmissionState } from '../control-items.ts';
import { type AdmissionItem, emptyAdmissionItem } from './admission-item.ts';
import { conditionFragments } from './condition-fragments.ts';
import { type MemberItem, memberKey } from './control-item-shapes.ts';
import { getControlItem } from './control-reads.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { keySlotOf } from './partition-keys.ts';

/** A member item of the earlier layout, which carried the admission state itself. */
interface EarlierMemberItem extends MemberItem {
  keys?: Record<string, KeyAdmissionState>;
  tokenDays?: Record<string, number>;
  holderDays?: Record<string, number>;
}

/**
 * Gives a member written by the earlier layout (one item with profile and admission state) its admission item:
 * status, the generations of its active keys, and the tokens and holder requests its days already counted, so a
 * stage upgraded in place keeps its allowances. Leases of requests that were in flight during the upgrade stay with
 * the earlier item (the earlier code settles them there), so their reservations stay charged for the day. Returns
 * whether the member has an admission item now; false for a member that has no earlier state either.
 */
export async function adoptEarlierLayout(tables: DynamoTables, memberId: string): Promise<boolean> {
  const earlier = await getControlItem<EarlierMemberItem>(tables, memberKey(memberId).pk, true);
  if (!earlier?.keys) return false;
  const item: AdmissionItem = {
    ...emptyAdmissionItem(memberId, earlier.status),
    t: { ...earlier.tokenDays },
    h: { ...earlier.holderDays },
  };
  const keySlots: Record<string, string> = {};
  for (const [keyId, state] of Object.entries(earlier.keys)) {
    keySlots[keySlotOf(keyId)] = keyId;
    if (state.state === 'active') item.k[keySlotOf(keyId)] = state.generation;
  }
  await tables.client.send(
    new UpdateCommand({
      TableName: tables.names.control,
      Key: memberKey(memberId),
      UpdateExpression: 'SET keySlots = if_not_exists(keySlots, :slots)',
      ConditionExpression: conditionFragments.controlItemExists,
      ExpressionAttributeValues: { ':slots': keySlots },
    }),
  );
  // An update that creates the item, so that the request-path functions need no PutItem on the control table.
  const { pk, ...attributes } = item;
  const names = Object.fromEntries(Object.keys(attributes).map((name) => [`#${name}`, name]));
  const values = Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value]));
  try {
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: { pk },
        UpdateExpression: `SET ${Object.keys(attributes)
          .map((name) => `#${name} = :${name}`)
          .join(', ')}`,
        ConditionExpression: conditionFragments.controlItemAbsent,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    // Another admission adopted it first.
    if (!isConditionFailure(error)) throw error;
  }
  return true;
}
