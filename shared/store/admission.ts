import type { KeyAdmissionState, Lease, MemberAccount, MemberStatus } from './control-items.ts';
import type { RunningRecord } from './usage-records.ts';

/** The limits one admission checks; an absent limit is not checked. Numbers come from the effective policy. */
export interface AdmissionLimits {
  dailyTokens?: number | undefined;
  memberRpm?: number | undefined;
  keyRpm?: number | undefined;
  memberConcurrency?: number | undefined;
  keyConcurrency?: number | undefined;
  holderDailyRequests?: number | undefined;
}

export interface AdmissionRequest {
  memberId: string;
  keyId: string;
  /** The key generation the caller authenticated with: a rotation since then refuses the admission. */
  generation: number;
  requestId: string;
  /** UTC day `YYYY-MM-DD` and minute `YYYY-MM-DDTHH:MM` of the admission. */
  day: string;
  minute: string;
  reserve: number;
  /** Epoch milliseconds of the admission, on the calendar clock; leases that expired by then are reported. */
  now: number;
  leaseExpiresAt: number;
  limits: AdmissionLimits;
  /**
   * The member and key versions the limits were read at. When an administrator changed the policy, limits or
   * expiry since (the account's `policyFloors` are above them), admission refuses with `policy_changed` and the
   * caller reads the principal again: a change takes effect at the next admission, even from a cached principal.
   */
  policyVersions?: { member: number; key: number } | undefined;
  /**
   * The record that shows the request running. An engine whose admission is one local transaction (SQLite) writes
   * it in that transaction, so the request costs one commit before dispatch instead of two, and says so
   * (`recordWritten`); an engine that does not (DynamoDB, where it is a second call) leaves it to the caller, who
   * writes it with `records.putRunning` alongside the upstream call.
   */
  running?: RunningRecord | undefined;
}

/** Why an admission was refused, exactly: each reason has its own answer for the caller. */
export type AdmissionRefusal =
  | { reason: 'invalid_key' }
  | { reason: 'key_revoked' }
  | { reason: 'key_rotated' }
  | { reason: 'member_disabled' }
  | { reason: 'member_suspended' }
  /** The reservation alone is more than the whole daily allowance: no day could ever admit it. */
  | { reason: 'reservation_too_large'; needed: number; limit: number }
  | { reason: 'token_allowance'; used: number; needed: number; limit: number }
  | { reason: 'rate'; scope: 'member' | 'key'; limit: number }
  | { reason: 'concurrency'; scope: 'member' | 'key'; limit: number }
  | { reason: 'holder_daily'; limit: number }
  /** Nothing explains the refusal any more: other admissions moved the state in between. Try again. */
  | { reason: 'contention' }
  /** The policy the caller read is older than the stored one: read the principal again and retry. */
  | { reason: 'policy_changed' };

export interface ExpiredLease extends Lease {
  memberId: string;
  requestId: string;
}

export type AdmissionResult =
  | {
      admitted: true;
      /** The admission wrote the request's running record (`AdmissionRequest.running`); nothing else needs to. */
      recordWritten?: boolean;
    }
  | {
      admitted: false;
      refusal: AdmissionRefusal;
      /** The member's leases that had expired at the admission: requests that died, in the way of this one. */
      expiredLeases: readonly ExpiredLease[];
    };

/**
 * What one admission checks, as counted at that moment. Both engines gather these (SQLite inside its admission
 * transaction, DynamoDB from a consistent read after a refused conditional write) and ask `refusalFor`.
 */
export interface AdmissionCounters {
  /** Undefined when the member does not exist. */
  memberStatus: MemberStatus | undefined;
  /** Undefined when the key does not exist or is not this member's. */
  key: KeyAdmissionState | undefined;
  tokensToday: number;
  memberRequestsThisMinute: number;
  keyRequestsThisMinute: number;
  memberLeases: number;
  keyLeases: number;
  holderRequestsToday: number;
  /** The oldest member and key versions admission accepts (`MemberAccount.policyFloors`); absent: any. */
  policyFloor?: { member: number; key: number } | undefined;
}

/**
 * The one rule of admission: the first check that refuses, in the order the caller should hear about it, or
 * undefined when the request may be admitted. The DynamoDB engine's condition expression states the same checks.
 */
export function refusalFor(counters: AdmissionCounters, request: AdmissionRequest): AdmissionRefusal | undefined {
  const { limits, reserve } = request;
  if (counters.memberStatus === undefined) return { reason: 'invalid_key' };
  if (counters.memberStatus === 'disabled') return { reason: 'member_disabled' };
  if (counters.memberStatus === 'suspended') return { reason: 'member_suspended' };
  if (!counters.key) return { reason: 'invalid_key' };
  if (counters.key.state === 'revoked') return { reason: 'key_revoked' };
  if (counters.key.generation !== request.generation) return { reason: 'key_rotated' };
  const floor = counters.policyFloor;
  const versions = request.policyVersions;
  if (floor && versions && (versions.member < floor.member || versions.key < floor.key)) {
    return { reason: 'policy_changed' };
  }
  if (limits.dailyTokens !== undefined && counters.tokensToday + reserve > limits.dailyTokens) {
    return { reason: 'token_allowance', used: counters.tokensToday, needed: reserve, limit: limits.dailyTokens };
  }
  if (limits.memberRpm !== undefined && counters.memberRequestsThisMinute >= limits.memberRpm) {
    return { reason: 'rate', scope: 'member', limit: limits.memberRpm };
  }
  if (limits.keyRpm !== undefined && counters.keyRequestsThisMinute >= limits.keyRpm) {
    return { reason: 'rate', scope: 'key', limit: limits.keyRpm };
  }
  if (limits.memberConcurrency !== undefined && counters.memberLeases >= limits.memberConcurrency) {
    return { reason: 'concurrency', scope: 'member', limit: limits.memberConcurrency };
  }
  if (limits.holderDailyRequests !== undefined && counters.holderRequestsToday >= limits.holderDailyRequests) {
    return { reason: 'holder_daily', limit: limits.holderDailyRequests };
  }
  if (limits.keyConcurrency !== undefined && counters.keyLeases >= limits.keyConcurrency) {
    return { reason: 'concurrency', scope: 'key', limit: limits.keyConcurrency };
  }
  return undefined;
}

/** The counters of one admission read off a member's account (undefined: the member does not exist). */
export function countersOf(account: MemberAccount | undefined, request: AdmissionRequest): AdmissionCounters {
  return {
    memberStatus: account?.status,
    key: account?.keys[request.keyId],
    tokensToday: account?.tokenDays[request.day] ?? 0,
    memberRequestsThisMinute: account?.minutes[request.minute] ?? 0,
    keyRequestsThisMinute: account?.keyMinutes[request.keyId]?.[request.minute] ?? 0,
    memberLeases: Object.keys(account?.leases ?? {}).length,
    keyLeases: Object.keys(account?.keyLeases[request.keyId] ?? {}).length,
    holderRequestsToday: account?.holderDays[request.day] ?? 0,
    policyFloor: account?.policyFloors && {
      member: account.policyFloors.member,
      key: account.policyFloors.keys[request.keyId] ?? 0,
    },
  };
}

/** The leases of an account that had expired by `now`. */
export function expiredLeasesOf(account: MemberAccount | undefined, now: number): ExpiredLease[] {
  if (!account) return [];
  return Object.entries(account.leases)
    .filter(([, lease]) => lease.expiresAt <= now)
    .map(([requestId, lease]) => ({ ...lease, memberId: account.id, requestId }));
}
