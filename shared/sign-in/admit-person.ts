import type { JWTPayload } from 'jose';
import type { SignInConfig } from '../config/gateway-config.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { SessionRecord } from '../store/sign-in-items.ts';
import { memberForPerson, personOf, sessionRole } from './person-member.ts';
import { disableRemovedPerson } from './removed-person.ts';
import { newSessionId, sha256 } from './session-cookie.ts';
import { auditSignIn } from './sign-in-audit.ts';
import { SignInRefusal } from './sign-in-refusal.ts';

/**
 * From a verified ID token's claims to a gateway session, the same for every way in (the console's callback, the
 * CLI's loopback callback, the CLI's device flow): the settings' checks on the person, the member they stand for,
 * the session (not yet stored: the caller stores it or hands it over), and the audit of the sign-in. A refusal is
 * audited, and when it says the provider no longer lets the person in, their member is disabled first.
 */
export async function admitPerson(
  services: GatewayServices,
  signIn: SignInConfig,
  claims: JWTPayload,
  client: SessionRecord['client'],
): Promise<{ session: SessionRecord; sessionId: string }> {
  let person: ReturnType<typeof personOf> | undefined;
  try {
    person = personOf(claims, signIn);
    const member = await memberForPerson(services, signIn, person);
    const sessionId = newSessionId();
    const now = services.now();
    const session: SessionRecord = {
      idHash: sha256(sessionId),
      memberId: member.id,
      role: sessionRole(person, member),
      subject: person.subject,
      email: person.email,
      client,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + signIn.sessionMs).toISOString(),
    };
    await auditSignIn(services, 'session.sign-in', {
      memberId: member.id,
      sessionHash: session.idHash,
      subject: person.subject,
      email: person.email,
      client,
    });
    return { session, sessionId };
  } catch (error) {
    if (error instanceof SignInRefusal) {
      // A verified token that says the provider no longer lets this person in disables the member it is linked to.
      const disabled = await disableRemovedPerson(services, claims.sub, error);
      await auditSignIn(services, 'session.refused', {
        code: error.code,
        memberId: disabled?.id,
        subject: claims.sub,
        email: person?.email ?? (typeof claims.email === 'string' ? claims.email : undefined),
        client,
      });
    }
    throw error;
  }
}

/** A token that does not verify: audited with the library's reason (which never quotes the token), answered 401. */
export async function refusedToken(services: GatewayServices, error: unknown): Promise<SignInRefusal> {
  const reason = error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : 'unknown';
  // The reason goes to the audit only; the browser learns that the answer was refused, not which check failed.
  await auditSignIn(services, 'session.refused', { code: 'id_token_invalid', reason });
  return new SignInRefusal('id_token_invalid', 'The identity provider’s answer did not verify; sign in again.', 401);
}
