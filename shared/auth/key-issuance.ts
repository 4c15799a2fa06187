import type { KeyView, NewKey } from '../store/control-items.ts';
import { StoreNotFoundError } from '../store/store-errors.ts';
import type { GatewayStore } from '../store/store-port.ts';
import { displayPrefix, generateKeySecret, hashKeySecret } from './key-secret.ts';

export interface IssuedKey extends KeyView {
  /** The secret, returned once at issuance or rotation and never stored. */
  key: string;
}

export interface KeyRequest extends Omit<NewKey, 'secretHash' | 'keyPrefix'> {
  /** The gateway tag (or holder tag) of the secret. */
  tag: string;
  /** A caller-chosen secret (the first administrator's `GATEWAY_ADMIN_KEY`); otherwise one is generated. */
  secret?: string | undefined;
}

/** Issues a key: the secret is made here and shown once; the store keeps only its hash and display prefix. */
export async function issueKey(store: GatewayStore, request: KeyRequest, now: Date): Promise<IssuedKey> {
  const { tag, secret: chosen, ...key } = request;
  const secret = chosen ?? generateKeySecret(tag);
  const stored = await store.keys.create(
    { ...key, secretHash: hashKeySecret(secret), keyPrefix: displayPrefix(secret) },
    now,
  );
  const { generation: _generation, ...view } = stored;
  return { ...view, key: secret };
}

/** Gives a key a new secret, shown once; a holder wallet's key keeps its holder prefix, or authentication would refuse it. */
export async function rotateKey(
  store: GatewayStore,
  id: string,
  tags: { keyTag: string; holderTag: string },
  now: Date,
): Promise<IssuedKey> {
  const key = await store.keys.get(id, { consistent: true });
  if (!key) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
  const member = await store.members.get(key.memberId, { consistent: true });
  const secret = generateKeySecret(member?.role === 'holder' ? tags.holderTag : tags.keyTag);
  const stored = { secretHash: hashKeySecret(secret), keyPrefix: displayPrefix(secret) };
  const rotated = await store.keys.rotate(id, stored, key.generation, now);
  const { generation: _generation, ...view } = rotated;
  return { ...view, key: secret };
}
