/**
 * The condition expressions of this engine's writes, named once. Each write that must not happen twice, or only
 * on an item in a given state, states its condition with these fragments; `ConditionalCheckFailedException`
 * then means exactly the state the fragment names, and the write's module turns it into a domain result or
 * error. Fragments that take values use the placeholders their comment gives.
 */
export const conditionFragments = {
  /** The control item exists (an update must not create a member, key or connection by accident). */
  controlItemExists: 'attribute_exists(pk)',
  /** No control item with this key yet: an id or secret is taken once. */
  controlItemAbsent: 'attribute_not_exists(pk)',
  /** No 0.1 record with this id yet. */
  legacyRecordAbsent: 'attribute_not_exists(id)',
  /** No record at this key yet. */
  recordAbsent: 'attribute_not_exists(sk)',
  /** A record is closed once: absent (settlement got there first) or still running. `#state`, `:running`. */
  recordOpen: 'attribute_not_exists(sk) OR #state = :running',
  /** The request's lease is still held: the once-only gate of settlement. `#l`, `#rid`. */
  leaseHeld: 'attribute_exists(#l.#rid)',
  /** Holdings go to a holder wallet's own member, never a team member's. `#role`, `:holder`. */
  holderOrAbsent: 'attribute_not_exists(pk) OR #role = :holder',
  /** The member may be admitted. `#s`, `:active`. */
  memberActive: '#s = :active',
  /** The key is this member's, active, and of the generation given. `#k`, `#slot`, `:generation`. */
  keyCurrent: '#k.#slot = :generation',
  /** The day's tokens leave room for this reservation. `#t`, `#day`, `:dailyBound` (limit - reserve). */
  tokensWithinAllowance: 'attribute_not_exists(#t.#day) OR #t.#day <= :dailyBound',
  /** The member's minute has room. `#w`, `#minute`, `:memberRpm`. */
  memberMinuteBelowLimit: 'attribute_not_exists(#w.#minute) OR #w.#minute < :memberRpm',
  /** The key's minute has room. `#kw`, `#keyMinute`, `:keyRpm`. */
  keyMinuteBelowLimit: 'attribute_not_exists(#kw.#keyMinute) OR #kw.#keyMinute < :keyRpm',
  /** The member holds fewer leases than its limit. `#l`, `:memberConcurrency`. */
  memberLeasesBelowLimit: 'size(#l) < :memberConcurrency',
  /** The key holds fewer leases than its limit. `#kl`, `#slot`, `:keyConcurrency`. */
  keyLeasesBelowLimit: 'attribute_not_exists(#kl.#slot) OR #kl.#slot < :keyConcurrency',
  /** The holder's day has requests left. `#h`, `#day`, `:holderDaily`. */
  holderDayBelowLimit: 'attribute_not_exists(#h.#day) OR #h.#day < :holderDaily',
  /** A rotation starts from the generation it read, on an active key. `#k`, `#slot`, `:current`. */
  rotationFromCurrent: '#k.#slot = :current',
  /** The member's policy the caller read is not older than the last change of it. `#pv`, `:memberVersion`. */
  memberPolicyCurrent: 'attribute_not_exists(#pv) OR #pv <= :memberVersion',
  /** Likewise the key's. `#kv`, `#slot`, `:keyVersion`. */
  keyPolicyCurrent: 'attribute_not_exists(#kv.#slot) OR #kv.#slot <= :keyVersion',
  /** A policy floor only ever rises (two changes racing leave the higher). `#floor`, `:version`. */
  floorBelow: 'attribute_exists(pk) AND (attribute_not_exists(#floor) OR #floor < :version)',
  /** The record is still at the version the caller read (1: also a record stored before versions). `#version`, `:expected`. */
  atVersion: '#version = :expected',
  atFirstVersion: 'attribute_exists(pk) AND (attribute_not_exists(#version) OR #version = :expected)',
  /** A key slot not taken by another key of the member. `#keySlots`, `#slot`. */
  keySlotFree: 'attribute_exists(pk) AND attribute_not_exists(#keySlots.#slot)',
} as const;

/** Fragments that must all hold. */
export function allOf(...fragments: readonly string[]): string {
  return fragments
    .map((fragment) => (fragments.length > 1 && fragment.includes(' OR ') ? `(${fragment})` : fragment))
    .join(' AND ');
}
