import {
  type ConnectionItem,
  type KeyRecord,
  type MemberProfile,
  readDeclaredModelLimits,
  type SecretLookup,
} from '../control-items.ts';

/**
 * Item shapes of the control table. A member has two items: this profile (name, role, policy, holdings, and which
 * key each slot of its admission item stands for), which administration writes, and its admission item
 * (admission-item.ts), which every admission and settlement rewrites and which therefore carries nothing else.
 */
export interface MemberItem extends MemberProfile {
  pk: string;
  kind: 'member';
  /** Slot → key id, for every key the member ever had (admission-item.ts names keys by slot). */
  keySlots?: Record<string, string>;
}

export interface KeyItem extends KeyRecord {
  pk: string;
  kind: 'key';
}

/** Looks a key up by the SHA-256 of its secret; the secret itself is never stored. */
export interface SecretLookupItem extends SecretLookup {
  pk: string;
}

export interface ConnectionControlItem extends ConnectionItem {
  pk: string;
  kind: 'connection';
}

/** The first administrator's member id, recorded once. */
export interface BootstrapItem {
  pk: typeof bootstrapKey;
  adminMemberId: string;
}

export const bootstrapKey = 'meta#bootstrap';
export const memberKey = (id: string) => ({ pk: `member#${id}` });
export const keyKey = (id: string) => ({ pk: `key#${id}` });
export const secretKey = (hash: string) => ({ pk: `secret#${hash}` });
export const connectionKey = (id: string) => ({ pk: `connection#${id}` });

export function toKeyRecord(item: KeyItem): KeyRecord {
  const { pk: _pk, kind: _kind, ...key } = item;
  // A key stored before versions existed reads as version 1.
  return { ...key, version: item.version ?? 1 };
}

export function toConnection(item: ConnectionControlItem): ConnectionItem {
  const { pk: _pk, kind: _kind, ...connection } = item;
  // Connections stored before the mark existed reach public addresses only, and those stored before model
  // limits existed declare none; a list that is not one is read as empty. An earlier layout may lack models.
  return {
    ...connection,
    models: Array.isArray(item.models) ? item.models : [],
    modelLimits: readDeclaredModelLimits(item.modelLimits),
    privateNetwork: item.privateNetwork === true,
    version: item.version ?? 1,
  };
}
