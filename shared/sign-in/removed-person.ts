import { recordAudit } from '../admin/audit-log.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { logger } from '../observability/logger.ts';
import { changedFields } from '../store/audit-entries.ts';
import type { MemberProfile } from '../store/control-items.ts';
import type { SignInRefusal } from './sign-in-refusal.ts';

/**
 * The refusals of a verified ID token that say the provider no longer lets this person in: its e-mail is explicitly
 * not verified, its domain is no longer allowed, or (with allowed groups configured) it is in none of them. A
 * member linked to that person is disabled, which stops its keys and sessions at once, as an administrator's
 * disable does. Other refusals identify nobody (a state that does not match, a token that does not verify, the
 * provider's `error=access_denied`, which carries no person) or describe the gateway's own configuration rather
 * than the person (`email_missing`, `email_verification_missing`: a missing claim, which on a misconfigured
 * provider every member would share), so they refuse the sign-in and disable no one.
 */
export const removalCodes: ReadonlySet<string> = new Set(['email_unverified', 'email_domain_refused', 'group_refused']);

/**
 * Disables the member linked to `subject` when `refusal` is one of `removalCodes` and it is still active or
 * suspended, with an audit entry (`member.disable`, actor the sign-in: `via: 'session'`, no member) naming the
 * refusal. Returns the member disabled, if any. A person never linked (an invited member who never signed in, an
 * unknown person) has no member to disable.
 */
export async function disableRemovedPerson(
  services: GatewayServices,
  subject: string | undefined,
  refusal: SignInRefusal,
): Promise<MemberProfile | undefined> {
  if (subject === undefined || !removalCodes.has(refusal.code)) return undefined;
  const store = services.store;
  const memberId = await store.sessions.personMember(subject);
  if (memberId === undefined) return undefined;
  const before = await store.members.get(memberId, { consistent: true });
  if (!before || before.role === 'holder' || before.status === 'disabled') return undefined;
  const member = await store.members.setStatus(memberId, 'disabled');
  const { before: was, after } = changedFields(before, member);
  logger.info('audit', { action: 'member.disable', memberId, subject, reason: refusal.code });
  await recordAudit(
    services,
    { memberId: '', keyId: null, via: 'session' },
    {
      action: 'member.disable',
      target: { type: 'member', id: memberId },
      before: was,
      after: { ...after, reason: `sign-in refused: ${refusal.code}` },
    },
  );
  return member;
}
