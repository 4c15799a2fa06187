import type { JWTPayload } from 'jose';
import type { SignInConfig } from '../config/gateway-config.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { MemberProfile, Policy } from '../store/control-items.ts';
import { SignInRefusal } from './sign-in-refusal.ts';

/** Who signed in, as the verified ID token says. */
export interface Person {
  subject: string;
  email: string;
  name: string;
  /** From the groups claim; undefined when no admin groups are configured (the member's own role decides). */
  role: 'admin' | 'member' | undefined;
}

/**
 * The role a session acts with: with admin groups configured the provider's groups decide (taking someone out of
 * the group takes their administration away at their next sign-in); without, the member's role as set here.
 */
export function sessionRole(person: Person, member: MemberProfile): 'admin' | 'member' {
  return person.role ?? (member.role === 'admin' ? 'admin' : 'member');
}

/**
 * The person an ID token names, if the gateway's settings let them in: a verified e-mail (`email_verified` true),
 * in an allowed domain, in an allowed group when some are configured; administrators by group, everyone else a
 * member. The refusals that say the provider no longer lets this person in are in `removalCodes`.
 */
export function personOf(claims: JWTPayload, signIn: SignInConfig): Person {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (email === '' || !email.includes('@'))
    throw new SignInRefusal('email_missing', 'The provider gave no e-mail address.');
  // Entra ID's `xms_edov` has been seen as a boolean and as the string "true"; `email_verified` is a boolean.
  const verified = claims[signIn.emailVerifiedClaim];
  if (verified === false || verified === 'false') {
    throw new SignInRefusal('email_unverified', 'The provider has not verified this e-mail address.');
  }
  if (verified !== true && verified !== 'true') {
    // No claim at all is the provider's configuration (Entra ID without `xms_edov`), not news about this person.
    throw new SignInRefusal(
      'email_verification_missing',
      `The provider did not say whether this e-mail address is verified (no "${signIn.emailVerifiedClaim}" claim).`,
    );
  }
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (signIn.emailDomains.length > 0 && !signIn.emailDomains.includes(domain)) {
    throw new SignInRefusal('email_domain_refused', `Addresses at ${domain} may not sign in to this gateway.`);
  }
  const groups = claims[signIn.groupsClaim];
  const groupList = Array.isArray(groups)
    ? groups.filter((group) => typeof group === 'string')
    : typeof groups === 'string'
      ? [groups]
      : [];
  const admin = groupList.some((group) => signIn.adminGroups.includes(group));
  if (signIn.allowedGroups.length > 0 && !admin && !groupList.some((group) => signIn.allowedGroups.includes(group))) {
    throw new SignInRefusal('group_refused', 'You are in none of the groups that may sign in to this gateway.');
  }
  const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : email;
  const role = signIn.adminGroups.length === 0 ? undefined : admin ? 'admin' : 'member';
  return { subject: claims.sub as string, email, name, role };
}

/**
 * The limits a person who signs in for the first time gets, with `GATEWAY_OIDC_UNKNOWN_PEOPLE=create-member`: the
 * team's default policy as the settings hold it now (`settings.defaultPolicy`, edited with `POST
 * /admin/v1/settings/update`). The one place that reads them; read at each creation, so an edit applies to the
 * next new member at once (an existing member keeps the limits it was created with).
 */
export async function teamDefaultPolicy(services: GatewayServices): Promise<Policy> {
  return (await services.store.settings.get()).defaultPolicy;
}

/**
 * The member a person stands for: by the provider's subject once linked; at a first sign-in, the member named by
 * the person's e-mail address (how an administrator invites someone: `member create --name ada@example.com`), else
 * a new member when the settings say so. Refused when the member is disabled or suspended, or a holder wallet.
 */
export async function memberForPerson(
  services: GatewayServices,
  signIn: SignInConfig,
  person: Person,
): Promise<MemberProfile> {
  const store = services.store;
  const linked = await store.sessions.personMember(person.subject);
  let member = linked === undefined ? undefined : await store.members.get(linked, { consistent: true });
  if (!member) {
    const invited = (await store.members.list()).find(
      (candidate) => candidate.role !== 'holder' && candidate.name.trim().toLowerCase() === person.email,
    );
    if (invited) {
      member = invited;
    } else if (signIn.unknownPeople === 'create-member') {
      member = await store.members.create(
        { name: person.email, role: person.role ?? 'member', policy: await teamDefaultPolicy(services) },
        services.now(),
      );
    } else {
      throw new SignInRefusal(
        'unknown_person',
        'No member of this gateway stands for you; ask an administrator to add you.',
      );
    }
    if (linked !== undefined) await store.sessions.unlinkPerson(person.subject);
    // Two first sign-ins at once: the first link wins, and both sessions act for that member.
    const winner = await store.sessions.linkPerson(person.subject, member.id);
    if (winner !== member.id) member = await store.members.get(winner, { consistent: true });
  }
  if (!member || member.role === 'holder')
    throw new SignInRefusal('unknown_person', 'No member of this gateway stands for you.');
  if (member.status === 'disabled')
    throw new SignInRefusal('member_disabled', 'Your membership of this gateway is disabled.');
  if (member.status === 'suspended')
    throw new SignInRefusal('member_suspended', 'Your membership of this gateway is suspended.');
  return member;
}
