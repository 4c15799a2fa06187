import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type KeyRecord, type SecretLookup, toKeyView } from '../control-items.ts';
import { newId } from '../ids.ts';
import { StoreConflictError, StoreNotFoundError } from '../store-errors.ts';
import type { KeyStore } from '../store-port.ts';
import { allOf, conditionFragments } from './condition-fragments.ts';
import {
  type KeyItem,
  keyKey,
  type MemberItem,
  memberKey,
  type SecretLookupItem,
  secretKey,
  toKeyRecord,
} from './control-item-shapes.ts';
import { getControlItem, listControlItems, putControlItemOnce } from './control-reads.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';

/** A rotation whose second write has not landed this long after its first is taken as stopped, not running. */
const stoppedRotationMs = 60_000;

export async function getKey(tables: DynamoTables, id: string, consistent = false): Promise<KeyRecord | undefined> {
  const item = await getControlItem<KeyItem>(tables, keyKey(id).pk, consistent);
  return item && toKeyRecord(item);
}

export async function findKeyBySecretHash(tables: DynamoTables, secretHash: string): Promise<SecretLookup | undefined> {
  const item = await getControlItem<SecretLookupItem>(tables, secretKey(secretHash).pk);
  return item && { keyId: item.keyId, memberId: item.memberId, generation: item.generation };
}

export function dynamoKeys(tables: DynamoTables): KeyStore {
  const tableName = tables.names.control;

  async function requireKey(id: string): Promise<KeyItem> {
    const key = await getControlItem<KeyItem>(tables, keyKey(id).pk);
    if (!key) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
    return key;
  }

  /** Older generations of the same key keep their lookup items; the generation tells them apart. */
  async function putSecretLookup(secretHash: string, entry: SecretLookup): Promise<void> {
    const item: SecretLookupItem = { ...secretKey(secretHash), ...entry };
    if (!(await putControlItemOnce(tables, item))) {
      throw new StoreConflictError('exists', 'That secret belongs to a key already.');
    }
  }

  const keyStateNames = (id: string) => ({
    '#keys': 'keys',
    '#keyMinutes': 'keyMinutes',
    '#keyLeases': 'keyLeases',
    '#kid': id,
  });

  return {
    /**
     * Writes are ordered so that a key authenticates only once everything it needs exists: the key item, then its
     * admission state in the member item, then the secret lookup that makes it usable. A failed step undoes the
     * ones before it.
     */
    async create(input, now) {
      const id = newId('key');
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
        keyPrefix: input.keyPrefix,
      };
      await tables.client.send(new PutCommand({ TableName: tableName, Item: item }));
      const removeKeyItem = () => tables.client.send(new DeleteCommand({ TableName: tableName, Key: keyKey(id) }));
      try {
        await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: memberKey(input.memberId),
            UpdateExpression: 'SET #keys.#kid = :state, #keyMinutes.#kid = :empty, #keyLeases.#kid = :empty',
            ConditionExpression: conditionFragments.controlItemExists,
            ExpressionAttributeNames: keyStateNames(id),
            ExpressionAttributeValues: { ':state': { generation: 1, state: 'active' }, ':empty': {} },
          }),
        );
      } catch (error) {
        await removeKeyItem();
        if (isConditionFailure(error)) {
          throw new StoreNotFoundError('member', `No member has the id ${input.memberId}.`);
        }
        throw error;
      }
      try {
        await putSecretLookup(input.secretHash, { keyId: id, memberId: input.memberId, generation: 1 });
      } catch (error) {
        await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: memberKey(input.memberId),
            UpdateExpression: 'REMOVE #keys.#kid, #keyMinutes.#kid, #keyLeases.#kid',
            ExpressionAttributeNames: keyStateNames(id),
          }),
        );
        await removeKeyItem();
        throw error;
      }
      return toKeyRecord(item);
    },

    get: (id, options) => getKey(tables, id, options?.consistent),
    findBySecretHash: (secretHash) => findKeyBySecretHash(tables, secretHash),

    async list(memberId) {
      const items = await listControlItems<KeyItem>(tables, 'key');
      return items
        .filter((item) => memberId === undefined || item.memberId === memberId)
        .map(toKeyView)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },

    /** Revocation writes the member item first: from that write on, admission refuses the key on every instance. */
    async revoke(id) {
      const key = await requireKey(id);
      await tables.client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: memberKey(key.memberId),
          UpdateExpression: 'SET #keys.#kid.#state = :revoked',
          ExpressionAttributeNames: { '#keys': 'keys', '#kid': id, '#state': 'state' },
          ExpressionAttributeValues: { ':revoked': 'revoked' },
        }),
      );
      const result = await tables.client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyKey(id),
          UpdateExpression: 'SET #state = :revoked',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':revoked': 'revoked' },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toKeyView(result.Attributes as KeyItem);
    },

    /**
     * Rotation bumps the key's generation in the member item first, so the old secret fails admission at once; the
     * new secret's lookup is written last, and the old lookup is kept so that its refusal can say "rotated".
     */
    async rotate(id, secret, fromGeneration, now): Promise<KeyRecord> {
      const key = await requireKey(id);
      if (key.generation !== fromGeneration) {
        throw new StoreConflictError('key_changed', 'The key was rotated at the same time; read it again.');
      }
      const member = await getControlItem<MemberItem>(tables, memberKey(key.memberId).pk, true);
      const admissionState = member?.keys[id];
      if (!member || !admissionState) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
      if (admissionState.state !== 'active') {
        throw new StoreConflictError('key_revoked', 'A revoked key cannot be rotated.');
      }
      // The key item's generation is what this caller saw; the member item's is what admission checks. They differ
      // while another rotation is between its two writes (refuse: two callers must not both get a secret), or when a
      // rotation stopped there (then the member item is the truth, and this rotation carries on from it).
      let current = key.generation;
      if (admissionState.generation !== key.generation) {
        // No time recorded: written before rotations recorded one, so long stopped.
        const startedAt = admissionState.rotatedAt ? Date.parse(admissionState.rotatedAt) : 0;
        if (now.getTime() - startedAt <= stoppedRotationMs) {
          throw new StoreConflictError('key_changed', 'The key is being rotated at this moment; read it again.');
        }
        current = admissionState.generation;
      }
      const generation = current + 1;
      try {
        await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: memberKey(key.memberId),
            UpdateExpression: 'SET #keys.#kid.#generation = :next, #keys.#kid.#rotatedAt = :now',
            ConditionExpression: allOf(conditionFragments.rotationFromCurrent),
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
          throw new StoreConflictError(
            'key_changed',
            'The key was rotated or revoked at the same time; read it again.',
          );
        }
        throw error;
      }
      const result = await tables.client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyKey(id),
          UpdateExpression: 'SET #generation = :generation, rotatedAt = :now, keyPrefix = :prefix',
          ExpressionAttributeNames: { '#generation': 'generation' },
          ExpressionAttributeValues: {
            ':generation': generation,
            ':now': now.toISOString(),
            ':prefix': secret.keyPrefix,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      await putSecretLookup(secret.secretHash, { keyId: id, memberId: key.memberId, generation });
      return toKeyRecord(result.Attributes as KeyItem);
    },
  };
}
