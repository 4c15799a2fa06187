import type { Policy } from '../store/control-items.ts';

/**
 * Whether a key's own policy stays within its member's: no limit above the member's, no provider or model the
 * member is not allowed. A field the key leaves out takes the member's (the effective policy is both at once), so
 * it is never wider. Returns the first field that is wider, or undefined.
 */
export function widerField(key: Policy, member: Policy): keyof Policy | undefined {
  for (const field of ['rpm', 'concurrency', 'maxOutput'] as const) {
    const own = key[field];
    const allowed = member[field];
    if (own !== undefined && allowed !== undefined && own > allowed) return field;
  }
  for (const field of ['providers', 'models'] as const) {
    const own = key[field];
    const allowed = member[field];
    if (own !== undefined && allowed !== undefined && own.some((entry) => !allowed.includes(entry))) return field;
  }
  return undefined;
}
