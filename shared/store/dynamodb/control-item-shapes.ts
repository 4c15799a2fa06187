import type { ConnectionItem, KeyRecord, MemberAccount, SecretLookup } from '../control-items.ts';

/**
 * Item shapes of the control table. The member item also carries the whole admission state (key generations and
 * states, token days, rate windows, leases), so that ONE conditional write admits a request.
 */
export interface MemberItem extends MemberAccount {
  pk: string;
  kind: 'member';
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

/** The maps admission writes into; they must exist before the first nested update. */
export function emptyAdmissionState(): Pick<
  MemberItem,
  'keys' | 'tokenDays' | 'minutes' | 'keyMinutes' | 'leases' | 'keyLeases' | 'holderDays'
> {
  return { keys: {}, tokenDays: {}, minutes: {}, keyMinutes: {}, leases: {}, keyLeases: {}, holderDays: {} };
}

export function toMemberAccount(item: MemberItem): MemberAccount {
  const { pk: _pk, kind: _kind, ...account } = item;
  return account;
}

export function toKeyRecord(item: KeyItem): KeyRecord {
  const { pk: _pk, kind: _kind, ...key } = item;
  return key;
}

export function toConnection(item: ConnectionControlItem): ConnectionItem {
  const { pk: _pk, kind: _kind, ...connection } = item;
  // Connections stored before the mark existed reach public addresses only.
  return { ...connection, privateNetwork: item.privateNetwork === true };
}
