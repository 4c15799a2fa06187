import { utcDay } from '../accounting/utc-buckets.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { KeyView, MemberProfile } from '../store/control-items.ts';

/** A member as the admin API and the console show it: the profile, its live keys and today's allowance. */
export interface MemberView extends MemberProfile {
  keyCount: number;
  today: {
    used: number;
    reserved: number;
    /** Null when the member's allowance is unlimited. */
    left: number | null;
    dailyTokens: number | null;
    /** The next 00:00 UTC, when the day's allowance starts again. */
    resetsAt: string;
  };
}

/** A key as shown: `expired` once its expiry has passed and it was not revoked. */
export interface ShownKey extends Omit<KeyView, 'state'> {
  state: KeyView['state'] | 'expired';
}

export function shownKey(key: KeyView, now: Date): ShownKey {
  const expired = key.state === 'active' && key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime();
  return { ...key, state: expired ? 'expired' : key.state };
}

const nextUtcMidnight = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();

/** The views of a page of members: one bounded read of their day and keys (`admission.today`). */
export async function memberViews(services: GatewayServices, members: readonly MemberProfile[]): Promise<MemberView[]> {
  const now = services.now();
  const day = utcDay(now);
  const today = await services.store.admission.today(
    members.map((member) => member.id),
    day,
    now,
  );
  return members.map((member) => {
    const counts = today.get(member.id) ?? { used: 0, reserved: 0, liveKeys: 0 };
    const dailyTokens = member.policy.dailyTokens ?? null;
    return {
      ...member,
      keyCount: counts.liveKeys,
      today: {
        used: counts.used,
        reserved: counts.reserved,
        left: dailyTokens === null ? null : Math.max(0, dailyTokens - counts.used - counts.reserved),
        dailyTokens,
        resetsAt: nextUtcMidnight(now),
      },
    };
  });
}
