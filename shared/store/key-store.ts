import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { displayPrefix, generateKeySecret, hashKeySecret } from '../auth/key-secret.ts';
import { badRequest, notFound } from '../http/gateway-error.ts';
import {
  type KeyItem,
  type KeyView,
  keyKey,
  type MemberItem,
  memberKey,
  type Policy,
  type SecretLookupItem,
  secretKey,
  toKeyView,
} from './control-items.ts';
import { type ControlTable, getControlItem, listControlItems } from './control-table.ts';
import { isConditionFailure } from './dynamo-client.ts';
import { newId } from './ids.ts';

export interface IssuedKey extends KeyView {
  /** The secret, returned once at issuance or rotation and never stored. */
  key: string;
}

export interface CreateKeyInput {
  memberId: string;
  name: string;
  expiresAt: string | null;
  policy: Policy;
  tag: string;
  /** A caller-chosen secret (the first administrator's `GATEWAY_ADMIN_KEY`); otherwise one is generated. */
  secret?: string;
}

/**
 * Writes are ordered so that a key authenticates only once everything it needs exists: the key record, then its
 * admission state in the member item, then the secret lookup that makes it usable.
 */
export async function createKey(table: ControlTable, input: CreateKeyInput, now: Date): Promise<IssuedKey> {
  const id = newId('key');
  const secret = input.secret ?? generateKeySecret(input.tag);
  const item: KeyItem = {
    ...keyKey(id),
    kind: 'key',
    id,
    memberId: input.memberId,
    name: input.name,
    state: 'active',
    generation: 1,
    expiresAt: input.expiresAt,
    policy: input.policy,
    createdAt: now.toISOString(),
    rotatedAt: null,
    keyPrefix: displayPrefix(secret),
  };
  await table.client.send(new PutCommand({ TableName: table.tableName, Item: item }));
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: memberKey(input.memberId),
        UpdateExpression: 'SET #keys.#kid = :state, #keyMinutes.#kid = :empty, #keyLeases.#kid = :empty',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: {
          '#keys': 'keys',
          '#keyMinutes': 'keyMinutes',
          '#keyLeases': 'keyLeases',
          '#kid': id,
        },
        ExpressionAttributeValues: { ':state': { generation: 1, state: 'active' }, ':empty': {} },
      }),
    );
  } catch (error) {
    await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: keyKey(id) }));
    if (isConditionFailure(error)) throw notFound('member_not_found', `No member has the id ${input.memberId}.`);
    throw error;
  }
  await putSecretLookup(table, secret, { keyId: id, memberId: input.memberId, generation: 1 });
  return { ...toKeyView(item), key: secret };
}

export function getKey(table: ControlTable, id: string, consistent = false): Promise<KeyItem | undefined> {
  return getControlItem<KeyItem>(table, keyKey(id).pk, consistent);
}

export function findSecret(table: ControlTable, key: string): Promise<SecretLookupItem | undefined> {
  return getControlItem<SecretLookupItem>(table, secretKey(hashKeySecret(key)).pk);
}

export async function listKeys(table: ControlTable, memberId?: string): Promise<KeyView[]> {
  const items = await listControlItems<KeyItem>(table, 'key');
  return items
    .filter((item) => memberId === undefined || item.memberId === memberId)
    .map(toKeyView)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Revocation writes the member item first: from that write on, admission refuses the key on every instance. */
export async function revokeKey(table: ControlTable, id: string): Promise<KeyView> {
  const key = await requireKey(table, id);
  await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: memberKey(key.memberId),
      UpdateExpression: 'SET #keys.#kid.#state = :revoked',
      ExpressionAttributeNames: { '#keys': 'keys', '#kid': id, '#state': 'state' },
      ExpressionAttributeValues: { ':revoked': 'revoked' },
    }),
  );
  const result = await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keyKey(id),
      UpdateExpression: 'SET #state = :revoked',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':revoked': 'revoked' },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return toKeyView(result.Attributes as KeyItem);
}

/**
 * Rotation bumps the key's generation in the member item first, so the old secret fails admission at once; the
 * new secret's lookup is written last, and the old lookup is kept so that its refusal can say "rotated".
 */
/** A rotation whose second write has not landed this long after its first is taken as stopped, not running. */
const stoppedRotationMs = 60_000;

export async function rotateKey(
  table: ControlTable,
  id: string,
  tags: { keyTag: string; holderTag: string },
  now: Date,
): Promise<IssuedKey> {
  const key = await requireKey(table, id);
  const member = await getControlItem<MemberItem>(table, memberKey(key.memberId).pk, true);
  const admissionState = member?.keys[id];
  if (!member || !admissionState) throw notFound('key_not_found', `No key has the id ${id}.`);
  if (admissionState.state !== 'active') throw badRequest('key_revoked', 'A revoked key cannot be rotated.');
  // The key record's generation is what this caller saw; the member item's is what admission checks. They differ
  // while another rotation is between its two writes (refuse: two callers must not both get a secret), or when a
  // rotation stopped there (then the member item is the truth, and this rotation carries on from it).
  let current = key.generation;
  if (admissionState.generation !== key.generation) {
    // No time recorded: written before rotations recorded one, so long stopped.
    const startedAt = admissionState.rotatedAt ? Date.parse(admissionState.rotatedAt) : 0;
    if (now.getTime() - startedAt <= stoppedRotationMs) {
      throw badRequest('key_changed', 'The key is being rotated at this moment; read it again.');
    }
    current = admissionState.generation;
  }
  const generation = current + 1;
  // A holder wallet's key keeps its holder prefix, or authentication would refuse the new secret.
  const secret = generateKeySecret(member.role === 'holder' ? tags.holderTag : tags.keyTag);
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: memberKey(key.memberId),
        UpdateExpression: 'SET #keys.#kid.#generation = :next, #keys.#kid.#rotatedAt = :now',
        ConditionExpression: '#keys.#kid.#generation = :current AND #keys.#kid.#state = :active',
        ExpressionAttributeNames: {
          '#keys': 'keys',
          '#kid': id,
          '#generation': 'generation',
          '#state': 'state',
          '#rotatedAt': 'rotatedAt',
        },
        ExpressionAttributeValues: {
          ':next': generation,
          ':current': current,
          ':active': 'active',
          ':now': now.toISOString(),
        },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) {
      throw badRequest('key_changed', 'The key was rotated or revoked at the same time; read it again.');
    }
    throw error;
  }
  const result = await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keyKey(id),
      UpdateExpression: 'SET #generation = :generation, rotatedAt = :now, keyPrefix = :prefix',
      ExpressionAttributeNames: { '#generation': 'generation' },
      ExpressionAttributeValues: {
        ':generation': generation,
        ':now': now.toISOString(),
        ':prefix': displayPrefix(secret),
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  await putSecretLookup(table, secret, { keyId: id, memberId: key.memberId, generation });
  return { ...toKeyView(result.Attributes as KeyItem), key: secret };
}

async function requireKey(table: ControlTable, id: string): Promise<KeyItem> {
  const key = await getKey(table, id);
  if (!key) throw notFound('key_not_found', `No key has the id ${id}.`);
  return key;
}

async function putSecretLookup(
  table: ControlTable,
  secret: string,
  entry: Omit<SecretLookupItem, 'pk'>,
): Promise<void> {
  // Older generations of the same key keep their lookup items; the generation tells them apart.
  const item: SecretLookupItem = { ...secretKey(hashKeySecret(secret)), ...entry };
  await table.client.send(
    new PutCommand({ TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}
