import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type KeyRecord, type SecretLookup, toKeyView } from '../control-items.ts';
import { newId } from '../ids.ts';
import { StoreConflictError, StoreNotFoundError, VersionConflictError } from '../store-errors.ts';
import type { KeyStore } from '../store-port.ts';
import { type AdmissionItem, admissionKey, rotationMemoryMs } from './admission-item.ts';
import { conditionFragments } from './condition-fragments.ts';
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
import { keyPageOnDynamo } from './dynamo-pages.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { adoptEarlierLayout } from './earlier-layout.ts';
import { keySlotOf } from './partition-keys.ts';
import { raisePolicyFloor, updateAtVersion, versionBump } from './versioned-update.ts';

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

  /**
   * Claims the key's slot in the member's profile (a slot names the key in the admission item, so two keys of one
   * member must never share one). False when another key of the member has it: the caller draws a new id.
   */
  async function claimSlot(memberId: string, keyId: string): Promise<boolean> {
    try {
      await tables.client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: memberKey(memberId),
          UpdateExpression: 'SET #keySlots.#slot = :keyId',
          ConditionExpression: conditionFragments.keySlotFree,
          ExpressionAttributeNames: { '#keySlots': 'keySlots', '#slot': keySlotOf(keyId) },
          ExpressionAttributeValues: { ':keyId': keyId },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const profile = await getControlItem<MemberItem>(tables, memberKey(memberId).pk, true);
      if (!profile) throw new StoreNotFoundError('member', `No member has the id ${memberId}.`);
      if (!profile.keySlots && (await adoptEarlierLayout(tables, memberId))) return claimSlot(memberId, keyId);
      return false;
    }
  }

  const admissionEntry = (memberId: string, keyId: string, update: string, values?: Record<string, unknown>) =>
    tables.client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: admissionKey(memberId),
        UpdateExpression: update,
        ConditionExpression: conditionFragments.controlItemExists,
        ExpressionAttributeNames: Object.fromEntries(
          Object.entries({ '#k': 'k', '#kl': 'kl', '#slot': keySlotOf(keyId) }).filter(([name]) =>
            update.includes(name),
          ),
        ),
        ...(values ? { ExpressionAttributeValues: values } : {}),
      }),
    );

  return {
    /**
     * Writes are ordered so that a key authenticates only once everything it needs exists: the key item, its slot
     * in the member's profile, its entry in the member's admission item, then the secret lookup that makes it
     * usable. A failed step undoes the ones before it.
     */
    async create(input, now) {
      let id = newId('key');
      for (let attempt = 0; !(await claimSlot(input.memberId, id)); attempt++) {
        if (attempt >= 3) throw new Error('no free key slot after several ids: the member item is not as expected');
        id = newId('key');
      }
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
        version: 1,
      };
      await tables.client.send(new PutCommand({ TableName: tableName, Item: item }));
      const removeKeyItem = () => tables.client.send(new DeleteCommand({ TableName: tableName, Key: keyKey(id) }));
      try {
        await admissionEntry(input.memberId, id, 'SET #k.#slot = :generation, #kl.#slot = :zero', {
          ':generation': 1,
          ':zero': 0,
        });
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
        await admissionEntry(input.memberId, id, 'REMOVE #k.#slot, #kl.#slot');
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

    /**
     * Revocation removes the key's entry from the member's admission item first: from that write on, admission
     * refuses the key on every instance. Its open leases stay, so its requests in flight still settle.
     */
    page: (query) => keyPageOnDynamo(tables, query),

    async revoke(id) {
      const key = await requireKey(id);
      try {
        await admissionEntry(key.memberId, id, 'REMOVE #k.#slot');
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        if (await adoptEarlierLayout(tables, key.memberId)) await admissionEntry(key.memberId, id, 'REMOVE #k.#slot');
      }
      const result = await tables.client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyKey(id),
          UpdateExpression: `SET #state = :revoked, ${versionBump.expression}`,
          ExpressionAttributeNames: { '#state': 'state', ...versionBump.names },
          ExpressionAttributeValues: { ':revoked': 'revoked', ...versionBump.values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toKeyView(result.Attributes as KeyItem);
    },

    /**
     * One conditional write of the key item; then, when its policy or expiry changed, the key's policy floor in the
     * member's admission item, so the next admission with a principal read before the change reads it again.
     */
    async update(id, expectedVersion, changes) {
      const written = await updateAtVersion<KeyItem>(tables, keyKey(id).pk, expectedVersion, { ...changes });
      if (!written) {
        const current = await getKey(tables, id, true);
        if (!current) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
        throw new VersionConflictError('key', toKeyView(current));
      }
      const key = toKeyRecord(written);
      if (changes.policy !== undefined || changes.expiresAt !== undefined) {
        await raisePolicyFloor(tables, admissionKey(key.memberId).pk, { map: 'kv', slot: keySlotOf(id) }, key.version);
      }
      return toKeyView(key);
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
      if (key.state === 'revoked') throw new StoreConflictError('key_revoked', 'A revoked key cannot be rotated.');
      let admission = await getControlItem<AdmissionItem>(tables, admissionKey(key.memberId).pk, true);
      if (!admission && (await adoptEarlierLayout(tables, key.memberId))) {
        admission = await getControlItem<AdmissionItem>(tables, admissionKey(key.memberId).pk, true);
      }
      if (!admission) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
      const slot = keySlotOf(id);
      const admittedGeneration = admission.k[slot];
      if (admittedGeneration === undefined) {
        throw new StoreConflictError('key_revoked', 'A revoked key cannot be rotated.');
      }
      const rotationStartedAt = admission.kr?.[slot];
      const admissionState = {
        generation: admittedGeneration,
        rotatedAt: rotationStartedAt === undefined ? undefined : new Date(rotationStartedAt).toISOString(),
      };
      // The key item's generation is what this caller saw; the member item's is what admission checks. They differ
      // while another rotation is between its two writes (refuse: two callers must not both get a secret), or when a
      // rotation stopped there (then the member item is the truth, and this rotation carries on from it).
      let current = key.generation;
      if (admissionState.generation !== key.generation) {
        // No time recorded: written before rotations recorded one, so long stopped.
        const startedAt = admissionState.rotatedAt ? Date.parse(admissionState.rotatedAt) : 0;
        if (now.getTime() - startedAt <= rotationMemoryMs) {
          throw new StoreConflictError('key_changed', 'The key is being rotated at this moment; read it again.');
        }
        current = admissionState.generation;
      }
      const generation = current + 1;
      try {
        await tables.client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: admissionKey(key.memberId),
            UpdateExpression: 'SET #k.#slot = :next, #kr.#slot = :now',
            ConditionExpression: conditionFragments.rotationFromCurrent,
            ExpressionAttributeNames: { '#k': 'k', '#kr': 'kr', '#slot': slot },
            ExpressionAttributeValues: {
              ':next': generation,
              ':current': current,
              ':now': now.getTime(),
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
          UpdateExpression: `SET #generation = :generation, rotatedAt = :now, keyPrefix = :prefix, ${versionBump.expression}`,
          ExpressionAttributeNames: { '#generation': 'generation', ...versionBump.names },
          ExpressionAttributeValues: {
            ...versionBump.values,
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
