import type { Principal } from '../auth/principal.ts';
import type { GatewayStore } from '../store/store-port.ts';
import type { UsageScope } from './usage-query.ts';
import { canViewTeam } from './usage-visibility.ts';

/** A key as the usage view names it: never its secret, only the display prefix the admin API also shows. */
export interface VisibleKey {
  id: string;
  name: string;
  keyPrefix: string;
  memberId: string;
  memberName: string;
  state: 'active' | 'revoked';
  /** What the page and the routing map print: the name and enough of the prefix to tell keys apart. */
  label: string;
}

/** The keys the viewer may filter by: their member's own, or for an administrator in team scope every key. */
export async function listVisibleKeys(
  store: GatewayStore,
  principal: Principal,
  scope: UsageScope,
): Promise<VisibleKey[]> {
  const team = scope === 'team' && canViewTeam(principal);
  const [keys, members] = await Promise.all([
    store.keys.list(team ? undefined : principal.memberId),
    team ? store.members.list() : Promise.resolve([principal.member]),
  ]);
  const memberNames = new Map(members.map((member) => [member.id, member.name]));
  return keys.map((key) => ({
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    memberId: key.memberId,
    memberName: memberNames.get(key.memberId) ?? key.memberId,
    state: key.state,
    label: `${key.name} · ${key.keyPrefix}`,
  }));
}

/** Labels for key ids; a key deleted since its traffic was recorded falls back to its id. */
export function keyLabeller(keys: readonly VisibleKey[]): (keyId: string) => string {
  const labels = new Map(keys.map((key) => [key.id, key.label]));
  return (keyId) => labels.get(keyId) ?? keyId;
}
