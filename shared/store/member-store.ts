import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../http/gateway-error.ts';
import {
  holderMemberId,
  type MemberItem,
  type MemberProfile,
  type MemberRole,
  type MemberStatus,
  memberKey,
  type Policy,
  toMemberProfile,
} from './control-items.ts';
import { type ControlTable, getControlItem, listControlItems } from './control-table.ts';
import { isConditionFailure } from './dynamo-client.ts';
import { newId } from './ids.ts';

/** The maps admission writes into; they must exist before the first nested update. */
function emptyAdmissionState(): Pick<
  MemberItem,
  'keys' | 'tokenDays' | 'minutes' | 'keyMinutes' | 'leases' | 'keyLeases' | 'holderDays'
> {
  return { keys: {}, tokenDays: {}, minutes: {}, keyMinutes: {}, leases: {}, keyLeases: {}, holderDays: {} };
}

export async function createMember(
  table: ControlTable,
  input: { name: string; role: MemberRole; policy: Policy; id?: string },
  now: Date,
): Promise<MemberProfile> {
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
    ...emptyAdmissionState(),
  };
  await table.client.send(
    new PutCommand({ TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  return toMemberProfile(item);
}

export function getMember(table: ControlTable, id: string, consistent = false): Promise<MemberItem | undefined> {
  return getControlItem<MemberItem>(table, memberKey(id).pk, consistent);
}

export async function listMembers(table: ControlTable): Promise<MemberProfile[]> {
  const items = await listControlItems<MemberItem>(table, 'member');
  return items.map(toMemberProfile).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/**
 * Records a holder wallet's holdings, creating the wallet's member item on first use: one write that sets the
 * admission maps only where they do not exist yet, so counters already there are kept.
 */
export async function setHolderHoldings(
  table: ControlTable,
  wallet: string,
  usd: number,
  now: Date,
): Promise<MemberProfile> {
  const id = holderMemberId(wallet);
  const initial: Record<string, unknown> = {
    kind: 'member',
    id,
    name: `holder ${wallet}`,
    role: 'holder',
    status: 'active',
    policy: {},
    createdAt: now.toISOString(),
    ...emptyAdmissionState(),
  };
  const names: Record<string, string> = { '#holdings': 'holdings', '#role': 'role' };
  const values: Record<string, unknown> = { ':holdings': { usd, at: now.toISOString() }, ':holder': 'holder' };
  const assignments = ['#holdings = :holdings'];
  for (const [field, value] of Object.entries(initial)) {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    assignments.push(`#${field} = if_not_exists(#${field}, :${field})`);
  }
  try {
    const result = await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: memberKey(id),
        UpdateExpression: `SET ${assignments.join(', ')}`,
        // A wallet name must never take over an ordinary member's item.
        ConditionExpression: 'attribute_not_exists(pk) OR #role = :holder',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toMemberProfile(result.Attributes as MemberItem);
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('member_not_found', `"${wallet}" is not a holder wallet.`);
    throw error;
  }
}

/** The status lives in the member item that admission writes, so a change takes effect on the next request. */
export async function setMemberStatus(table: ControlTable, id: string, status: MemberStatus): Promise<MemberProfile> {
  try {
    const result = await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: memberKey(id),
        UpdateExpression: 'SET #status = :status',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toMemberProfile(result.Attributes as MemberItem);
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('member_not_found', `No member has the id ${id}.`);
    throw error;
  }
}
