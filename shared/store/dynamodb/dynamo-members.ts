import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { holderMemberId, type MemberProfile, toMemberProfile } from '../control-items.ts';
import { newId } from '../ids.ts';
import { StoreConflictError, StoreNotFoundError, VersionConflictError } from '../store-errors.ts';
import type { MemberStore } from '../store-port.ts';
import { admissionKey, emptyAdmissionItem } from './admission-item.ts';
import { conditionFragments } from './condition-fragments.ts';
import { type BootstrapItem, bootstrapKey, type MemberItem, memberKey } from './control-item-shapes.ts';
import { getControlItem, listControlItems, putControlItemOnce } from './control-reads.ts';
import { memberPageOnDynamo } from './dynamo-pages.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { adoptEarlierLayout } from './earlier-layout.ts';
import { raisePolicyFloor, updateAtVersion, versionBump } from './versioned-update.ts';

/** Sets the status in the admission item, which admission reads; false when the member has none. */
async function setAdmissionStatus(tables: DynamoTables, id: string, status: string): Promise<boolean> {
  try {
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: admissionKey(id),
        UpdateExpression: 'SET #s = :status',
        ConditionExpression: conditionFragments.controlItemExists,
        ExpressionAttributeNames: { '#s': 's' },
        ExpressionAttributeValues: { ':status': status },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getMember(
  tables: DynamoTables,
  id: string,
  consistent = false,
): Promise<MemberProfile | undefined> {
  const item = await getControlItem<MemberItem>(tables, memberKey(id).pk, consistent);
  return item && toMemberProfile(item);
}

export function dynamoMembers(tables: DynamoTables): MemberStore {
  const tableName = tables.names.control;
  return {
    async create(input, now) {
      const id = input.id ?? newId('mem');
      const item: MemberItem = {
        ...memberKey(id),
        kind: 'member',
        id,
        name: input.name,
        role: input.role,
        status: 'active',
        policy: input.policy,
        createdAt: now.toISOString(),
        version: 1,
        keySlots: {},
      };
      if (!(await putControlItemOnce(tables, item))) {
        throw new StoreConflictError('exists', `A member has the id ${id} already.`);
      }
      await putControlItemOnce(tables, emptyAdmissionItem(id, 'active'));
      return toMemberProfile(item);
    },

    get: (id, options) => getMember(tables, id, options?.consistent),

    async list() {
      const items = await listControlItems<MemberItem>(tables, 'member');
      return items.map(toMemberProfile).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },

    /**
     * The admission item first, which admission reads, so the change takes effect on the very next request; then
     * the profile, which lists show.
     */
    page: (query) => memberPageOnDynamo(tables, query),

    async setStatus(id, status) {
      if (!(await setAdmissionStatus(tables, id, status))) {
        if (!(await adoptEarlierLayout(tables, id)) || !(await setAdmissionStatus(tables, id, status))) {
          throw new StoreNotFoundError('member', `No member has the id ${id}.`);
        }
      }
      try {
        const result = await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: memberKey(id),
            UpdateExpression: `SET #status = :status, ${versionBump.expression}`,
            ConditionExpression: conditionFragments.controlItemExists,
            ExpressionAttributeNames: { '#status': 'status', ...versionBump.names },
            ExpressionAttributeValues: { ':status': status, ...versionBump.values },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toMemberProfile(result.Attributes as MemberItem);
      } catch (error) {
        if (isConditionFailure(error)) throw new StoreNotFoundError('member', `No member has the id ${id}.`);
        throw error;
      }
    },

    /**
     * One write that creates the wallet's profile on first use (or updates its holdings), then its admission item
     * where it has none yet, so counters already there are kept.
     */
    async setHoldings(wallet, usd, now): Promise<MemberProfile> {
      const id = holderMemberId(wallet);
      const initial: Record<string, unknown> = {
        kind: 'member',
        id,
        name: `holder ${wallet}`,
        role: 'holder',
        status: 'active',
        policy: {},
        createdAt: now.toISOString(),
        keySlots: {},
      };
      const names: Record<string, string> = { '#holdings': 'holdings', '#role': 'role', ...versionBump.names };
      const values: Record<string, unknown> = {
        ':holdings': { usd, at: now.toISOString() },
        ':holder': 'holder',
        ...versionBump.values,
      };
      // A new wallet's member starts at version 1 (the bump of an absent version gives 2, hence the zero).
      const assignments = ['#holdings = :holdings', '#version = if_not_exists(#version, :zero) + :one'];
      values[':zero'] = 0;
      for (const [field, value] of Object.entries(initial)) {
        names[`#${field}`] = field;
        values[`:${field}`] = value;
        assignments.push(`#${field} = if_not_exists(#${field}, :${field})`);
      }
      try {
        const result = await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: memberKey(id),
            UpdateExpression: `SET ${assignments.join(', ')}`,
            ConditionExpression: conditionFragments.holderOrAbsent,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        await putControlItemOnce(tables, emptyAdmissionItem(id, 'active'));
        return toMemberProfile(result.Attributes as MemberItem);
      } catch (error) {
        if (isConditionFailure(error)) throw new StoreNotFoundError('member', `"${wallet}" is not a holder wallet.`);
        throw error;
      }
    },

    /**
     * One conditional write of the profile; then, when the policy changed, the policy floor in the admission item,
     * so that the next admission made with a principal read before the change is refused and reads it again.
     */
    async update(id, expectedVersion, changes) {
      const written = await updateAtVersion<MemberItem>(tables, memberKey(id).pk, expectedVersion, { ...changes });
      if (!written) {
        const current = await getMember(tables, id, true);
        if (!current) throw new StoreNotFoundError('member', `No member has the id ${id}.`);
        throw new VersionConflictError('member', current);
      }
      const profile = toMemberProfile(written);
      if (changes.policy !== undefined) {
        await raisePolicyFloor(tables, admissionKey(id).pk, { map: 'pv' }, profile.version);
      }
      return profile;
    },

    async firstAdministrator() {
      return (await getControlItem<BootstrapItem>(tables, bootstrapKey, true))?.adminMemberId;
    },

    async recordFirstAdministrator(memberId) {
      await putControlItemOnce(tables, { pk: bootstrapKey, adminMemberId: memberId } satisfies BootstrapItem);
      const stored = await getControlItem<BootstrapItem>(tables, bootstrapKey, true);
      if (!stored) throw new Error('the bootstrap record vanished while it was being written');
      return stored.adminMemberId;
    },
  };
}
