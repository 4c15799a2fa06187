import type { Principal } from '../auth/principal.ts';
import { forbidden } from '../http/gateway-error.ts';
import type { GatewayStore } from '../store/store-port.ts';
import type { UsageQuery } from './usage-query.ts';

/** What the viewer may see, narrowed by the filters: the one input every usage read takes. */
export interface RecordSelection {
  /** One member's traffic (and its index partition); undefined reads the whole team. */
  memberId: string | undefined;
  keyId: string | undefined;
  providers: string[];
  /** The filters ask only for traffic the viewer may not see: the answer is empty and nothing is read. */
  nothingVisible: boolean;
}

export function canViewTeam(principal: Principal): boolean {
  return principal.member.role === 'admin';
}

/**
 * The visibility rule (spec §4.6 rule 4), enforced here and not by the page: a member sees only their own
 * member's traffic, and a key filter naming someone else's key leaves nothing (without saying whether that key
 * exists). Administrators may ask for the team; a key filter then narrows to that key's member, whose time
 * index is far smaller than the team's days.
 */
export async function selectVisibleRecords(
  store: GatewayStore,
  principal: Principal,
  query: UsageQuery,
): Promise<RecordSelection> {
  if (query.scope === 'team' && !canViewTeam(principal)) {
    throw forbidden('team_scope_admin_only', 'Only administrators may view the whole team; use scope=own.');
  }
  const base = { keyId: query.keyId, providers: query.providers, nothingVisible: false };
  const ownMember = query.scope === 'own' ? principal.memberId : undefined;
  if (query.keyId === undefined) return { ...base, memberId: ownMember };

  const key = query.keyId === principal.keyId ? { memberId: principal.memberId } : await store.keys.get(query.keyId);
  if (!key || (ownMember !== undefined && key.memberId !== ownMember)) {
    return { ...base, memberId: ownMember ?? principal.memberId, nothingVisible: true };
  }
  return { ...base, memberId: key.memberId };
}
