import type { GatewayServices } from '../config/gateway-services.ts';
import { badRequest, refusalError, unauthorized } from '../http/gateway-error.ts';
import type { MemberStatus } from '../store/control-items.ts';
import { hashKeySecret } from './key-secret.ts';
import type { Principal } from './principal.ts';

/**
 * The key from whichever of the three headers the caller's SDK uses (spec §5 rule 1). Two headers carrying
 * different keys are refused rather than guessed between.
 */
export function extractKey(headers: Record<string, string | undefined>): string | undefined {
  const bearer = headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  const candidates = [bearer, headers['x-api-key']?.trim(), headers['x-goog-api-key']?.trim()].filter(
    (value): value is string => value !== undefined && value.length > 0,
  );
  const distinct = new Set(candidates);
  if (distinct.size > 1) {
    throw badRequest('conflicting_credentials', 'The request carries different keys in different headers.');
  }
  return candidates[0];
}

/**
 * The caller's principal, read from the store on every call unless `admittedAfter` is set. Only inference sets
 * it: its admission write re-checks the key's generation and state and the member's status in its condition, so
 * a principal cached by this process cannot outlive a revocation made by another (another Lambda instance, whose
 * admin call cleared only its own caches). Token counts, model lists, usage reads and administration have no such
 * write, so they read fresh: a revoked key is refused on the very next request wherever it goes.
 */
export async function authenticate(
  services: GatewayServices,
  headers: Record<string, string | undefined>,
  options: { admittedAfter?: boolean } = {},
): Promise<Principal> {
  const key = extractKey(headers);
  if (!key) {
    throw unauthorized(
      'missing_key',
      'No API key: send it as "Authorization: Bearer <key>", "x-api-key" or "x-goog-api-key".',
    );
  }
  const { keyTag, holderTag } = services.config;
  const holder = key.startsWith(`sk-${holderTag}-`);
  if (!holder && !key.startsWith(`sk-${keyTag}-`)) throw refusalError({ reason: 'invalid_key' });

  const principal = options.admittedAfter
    ? await services.caches.principals.getOrLoad(hashKeySecret(key), () => loadPrincipal(services, key, holder))
    : await loadPrincipal(services, key, holder, { consistent: true });
  if (!principal) throw refusalError({ reason: 'invalid_key' });
  checkPrincipal(principal, services.now());
  return principal;
}

/** `consistent`: strongly consistent reads of the key and member, so a revocation a moment ago is seen. */
async function loadPrincipal(
  services: GatewayServices,
  key: string,
  holder: boolean,
  { consistent } = { consistent: false },
): Promise<Principal | undefined> {
  const lookup = await services.store.keys.findBySecretHash(hashKeySecret(key));
  if (!lookup) return undefined;
  const [keyItem, memberItem] = await Promise.all([
    services.store.keys.get(lookup.keyId, { consistent }),
    services.store.members.get(lookup.memberId, { consistent }),
  ]);
  // A holder key must belong to a holder wallet and a gateway key to a team member, whatever its prefix says.
  if (!keyItem || !memberItem || (memberItem.role === 'holder') !== holder) return undefined;
  return {
    keyId: keyItem.id,
    memberId: memberItem.id,
    generation: lookup.generation,
    currentGeneration: keyItem.generation,
    keyState: keyItem.state,
    keyExpiresAt: keyItem.expiresAt,
    keyPolicy: keyItem.policy,
    keyVersion: keyItem.version,
    member: memberItem,
    holder,
  };
}

/** Refusals knowable without a write; admission's condition re-checks the ones that must be current. */
function checkPrincipal(principal: Principal, now: Date): void {
  if (principal.keyState === 'revoked') throw refusalError({ reason: 'key_revoked' });
  if (principal.generation !== principal.currentGeneration) throw refusalError({ reason: 'key_rotated' });
  if (principal.keyExpiresAt !== null && Date.parse(principal.keyExpiresAt) <= now.getTime()) {
    throw unauthorized('key_expired', 'The API key has expired.');
  }
  checkMemberStatus(principal.member.status);
}

function checkMemberStatus(status: MemberStatus): void {
  if (status === 'disabled') throw refusalError({ reason: 'member_disabled' });
  if (status === 'suspended') throw refusalError({ reason: 'member_suspended' });
}
