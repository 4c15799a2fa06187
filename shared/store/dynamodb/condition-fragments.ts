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
  /** No record with this id yet. */
  recordAbsent: 'attribute_not_exists(id)',
  /** A record is closed once: absent (settlement got there first) or still running. `:running`. */
  recordOpen: 'attribute_not_exists(id) OR #state = :running',
  /** The request's lease is still held: the once-only gate of settlement. `#leases`, `#rid`. */
  leaseHeld: 'attribute_exists(#leases.#rid)',
  /** Holdings go to a holder wallet's own member, never a team member's. `#role`, `:holder`. */
  holderOrAbsent: 'attribute_not_exists(pk) OR #role = :holder',
  /** The member may be admitted. `#status`, `:active`. */
  memberActive: '#status = :active',
  /** The key is this member's, active, and of the generation given. `#keys`, `#kid`, `#generation`, `#state`, `:generation`, `:active`. */
  keyCurrent: '#keys.#kid.#generation = :generation AND #keys.#kid.#state = :active',
  /** The day's tokens leave room for this reservation. `#tokenDays`, `#day`, `:dailyBound` (limit - reserve). */
  tokensWithinAllowance: 'attribute_not_exists(#tokenDays.#day) OR #tokenDays.#day <= :dailyBound',
  /** The member's minute has room. `#minutes`, `#minute`, `:memberRpm`. */
  memberMinuteBelowLimit: 'attribute_not_exists(#minutes.#minute) OR #minutes.#minute < :memberRpm',
  /** The key's minute has room. `#keyMinutes`, `#kid`, `#minute`, `:keyRpm`. */
  keyMinuteBelowLimit: 'attribute_not_exists(#keyMinutes.#kid.#minute) OR #keyMinutes.#kid.#minute < :keyRpm',
  /** The member holds fewer leases than its limit. `#leases`, `:memberConcurrency`. */
  memberLeasesBelowLimit: 'size(#leases) < :memberConcurrency',
  /** The key holds fewer leases than its limit. `#keyLeases`, `#kid`, `:keyConcurrency`. */
  keyLeasesBelowLimit: 'size(#keyLeases.#kid) < :keyConcurrency',
  /** The holder's day has requests left. `#holderDays`, `#day`, `:holderDaily`. */
  holderDayBelowLimit: 'attribute_not_exists(#holderDays.#day) OR #holderDays.#day < :holderDaily',
  /** A rotation starts from the generation it read, on an active key. `#keys`, `#kid`, `#generation`, `#state`, `:current`, `:active`. */
  rotationFromCurrent: '#keys.#kid.#generation = :current AND #keys.#kid.#state = :active',
} as const;

/** Fragments that must all hold. */
export function allOf(...fragments: readonly string[]): string {
  return fragments
    .map((fragment) => (fragments.length > 1 && fragment.includes(' OR ') ? `(${fragment})` : fragment))
    .join(' AND ');
}
