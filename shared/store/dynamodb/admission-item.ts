import type { KeyAdmissionState, Lease, MemberAccount, MemberStatus } from '../control-items.ts';
import type { KeyItem, MemberItem } from './control-item-shapes.ts';

/**
 * A member's admission item: everything one admission checks and moves, and nothing else, so that ONE conditional
 * UpdateItem admits a request and the item stays under 1 KB (one write unit) for a member with ten keys and ten
 * requests in flight. The names are short because every admission and every settlement rewrites the whole item
 * (DynamoDB bills an update by the larger of the item before and after it); the member's name, policy and key
 * names live in its profile item (`member#…`), which only administration writes.
 *
 * Keys are named by their slot (`keySlotOf`, the end of the key id, unique among the member's keys); only active
 * keys have an entry, so a revocation removes it. Minutes are epoch minutes in base 36. Admission drops the minutes
 * two and three before its own and the day before yesterday as it goes, so the item does not grow with activity.
 */
export interface AdmissionItem {
  pk: string;
  /** The member's status: only `active` is admitted. */
  s: MemberStatus;
  /** Active keys: slot → generation of the current secret. */
  k: Record<string, number>;
  /** Open leases per key slot. */
  kl: Record<string, number>;
  /** Open leases: request id → `slot.admittedAt.ttl.reserved` (the numbers in base 36, times in milliseconds). */
  l: Record<string, string>;
  /** Tokens used or reserved per UTC day (`YYYY-MM-DD`). */
  t: Record<string, number>;
  /** The member's requests per minute. */
  w: Record<string, number>;
  /** Requests per key and minute (`slot.minute`), counted only for keys with a rate limit. */
  kw: Record<string, number>;
  /** Holder requests per UTC day. */
  h: Record<string, number>;
  /** When a key's last rotation began (epoch milliseconds), while that is recent enough to matter. */
  kr: Record<string, number>;
  /**
   * Policy floors, written by administration only (absent until the first change): the oldest member version, and
   * per key slot the oldest key version, whose policy admission still accepts (`MemberAccount.policyFloors`).
   */
  pv?: number;
  kv?: Record<string, number>;
}

/** A rotation not finished this long after it began is taken as stopped (dynamo-keys.ts), so its time is dropped. */
export const rotationMemoryMs = 60_000;

export const admissionKey = (memberId: string) => ({ pk: `adm#${memberId}` });

export function emptyAdmissionItem(memberId: string, status: MemberStatus): AdmissionItem {
  return { ...admissionKey(memberId), s: status, k: {}, kl: {}, l: {}, t: {}, w: {}, kw: {}, h: {}, kr: {} };
}

/** `YYYY-MM-DDTHH:MM` ↔ the epoch minute in base 36. */
export const compactMinute = (minute: string) => (Date.parse(`${minute}:00.000Z`) / 60_000).toString(36);
export const isoMinute = (compact: string) =>
  new Date(Number.parseInt(compact, 36) * 60_000).toISOString().slice(0, 16);
export const keyMinuteName = (slot: string, minute: string) => `${slot}.${compactMinute(minute)}`;

export interface CompactLease {
  slot: string;
  /** Epoch milliseconds of the admission: the record's `startedAt`, whose UTC day holds the reservation. */
  admittedAt: number;
  expiresAt: number;
  reserved: number;
}

export function encodeLease(lease: CompactLease): string {
  return [lease.slot, lease.admittedAt, lease.expiresAt - lease.admittedAt, lease.reserved]
    .map((part) => (typeof part === 'number' ? part.toString(36) : part))
    .join('.');
}

export function decodeLease(value: string): CompactLease {
  const [slot = '', admittedAt = '0', ttl = '0', reserved = '0'] = value.split('.');
  const admitted = Number.parseInt(admittedAt, 36);
  return {
    slot,
    admittedAt: admitted,
    expiresAt: admitted + Number.parseInt(ttl, 36),
    reserved: Number.parseInt(reserved, 36),
  };
}

/**
 * A member's tokens of a UTC day from its admission item (`MemberToday`): `reserved`, what the leases admitted that
 * day still hold, and `used`, the charged tokens: the day's count less that reservation.
 */
export function dayTokens(item: AdmissionItem | undefined, day: string): { used: number; reserved: number } {
  let reserved = 0;
  for (const value of Object.values(item?.l ?? {})) {
    const lease = decodeLease(value);
    if (new Date(lease.admittedAt).toISOString().slice(0, 10) === day) reserved += lease.reserved;
  }
  return { used: Math.max(0, (item?.t?.[day] ?? 0) - reserved), reserved };
}

/** A lease as the domain sees it. */
export function toLease(compact: CompactLease, keyId: string): Lease {
  const startedAt = new Date(compact.admittedAt).toISOString();
  return {
    keyId,
    expiresAt: compact.expiresAt,
    reserved: compact.reserved,
    day: startedAt.slice(0, 10),
    startedAt,
  };
}

/**
 * A member's account as the domain reads it, from its profile (which names the keys behind the slots) and its
 * admission item. `revokedKeys` are the member's keys with no entry any more, reported as revoked.
 */
export function toMemberAccount(
  profile: MemberItem,
  admission: AdmissionItem | undefined,
  revokedKeys: readonly KeyItem[] = [],
): MemberAccount {
  const slots = profile.keySlots ?? {};
  const keyIdOf = (slot: string) => slots[slot] ?? slot;
  const item = admission ?? emptyAdmissionItem(profile.id, profile.status);
  const keys: Record<string, KeyAdmissionState> = {};
  for (const key of revokedKeys) keys[key.id] = { generation: key.generation, state: 'revoked' };
  for (const [slot, generation] of Object.entries(item.k)) {
    const rotation = item.kr?.[slot];
    keys[keyIdOf(slot)] = {
      generation,
      state: 'active',
      ...(rotation === undefined ? {} : { rotatedAt: new Date(rotation).toISOString() }),
    };
  }
  const leases: Record<string, Lease> = {};
  const keyLeases: Record<string, Record<string, number>> = {};
  const keyMinutes: Record<string, Record<string, number>> = {};
  for (const keyId of Object.values(slots)) {
    keyLeases[keyId] = {};
    keyMinutes[keyId] = {};
  }
  for (const [requestId, value] of Object.entries(item.l)) {
    const compact = decodeLease(value);
    const keyId = keyIdOf(compact.slot);
    leases[requestId] = toLease(compact, keyId);
    keyLeases[keyId] = { ...keyLeases[keyId], [requestId]: compact.expiresAt };
  }
  for (const [name, count] of Object.entries(item.kw ?? {})) {
    const [slot = '', minute = ''] = name.split('.');
    const keyId = keyIdOf(slot);
    keyMinutes[keyId] = { ...keyMinutes[keyId], [isoMinute(minute)]: count };
  }
  const { pk: _pk, kind: _kind, keySlots: _keySlots, ...memberProfile } = profile;
  return {
    ...memberProfile,
    version: profile.version ?? 1,
    status: item.s,
    keys,
    tokenDays: { ...item.t },
    minutes: Object.fromEntries(Object.entries(item.w).map(([minute, count]) => [isoMinute(minute), count])),
    keyMinutes,
    leases,
    keyLeases,
    holderDays: { ...item.h },
    policyFloors: {
      member: item.pv ?? 0,
      keys: Object.fromEntries(Object.entries(item.kv ?? {}).map(([slot, version]) => [keyIdOf(slot), version])),
    },
  };
}
