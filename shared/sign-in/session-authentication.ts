import { authenticate } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { forbidden, refusalError, unauthorized } from '../http/gateway-error.ts';
import type { GatewayRequest } from '../http/gateway-request.ts';
import type { SessionRecord } from '../store/sign-in-items.ts';
import { consoleHeader, cookieNames, readCookie, sessionIdPrefix, sha256, usesHttps } from './session-cookie.ts';

/**
 * The caller of the admin API or the usage API: a gateway key as everywhere, or a session of the gateway's own.
 * A session counts from the admin CLI as `Authorization: Session <id>` (a header no browser sends by itself), and
 * from the console as its cookie only together with `x-gateway-console: 1` (a header another site's page cannot
 * add to a cross-site request without a CORS preflight the gateway never grants): that header is the CSRF guard.
 * The session's member is read on every request, so disabling or suspending it refuses the session at once.
 */
export async function authenticateCaller(services: GatewayServices, request: GatewayRequest): Promise<Principal> {
  const headers = request.headers;
  const cliSession = headers.authorization?.match(/^Session\s+(\S+)$/i)?.[1];
  if (cliSession !== undefined) return sessionPrincipal(services, cliSession);
  const hasKey = headers.authorization !== undefined || headers['x-api-key'] || headers['x-goog-api-key'];
  const cookie = readCookie(headers, cookieNames(usesHttps(services.config, headers)).session);
  if (hasKey || cookie === undefined || services.config.signIn === undefined) {
    return authenticate(services, headers);
  }
  if (headers[consoleHeader] !== '1') {
    throw forbidden(
      'console_header_required',
      `A session cookie counts only on requests that carry "${consoleHeader}: 1" (the console sends it).`,
    );
  }
  return sessionPrincipal(services, cookie);
}

async function sessionPrincipal(services: GatewayServices, sessionId: string): Promise<Principal> {
  if (services.config.signIn === undefined || !sessionId.startsWith(sessionIdPrefix)) {
    throw unauthorized('invalid_session', 'The session is not one this gateway issued, or it has ended.');
  }
  const session = await services.store.sessions.find(sha256(sessionId), services.now());
  if (!session) throw unauthorized('invalid_session', 'The session is not one this gateway issued, or it has ended.');
  const member = await services.store.members.get(session.memberId, { consistent: true });
  if (!member) throw unauthorized('invalid_session', 'The session is not one this gateway issued, or it has ended.');
  if (member.status === 'disabled') throw refusalError({ reason: 'member_disabled' });
  if (member.status === 'suspended') throw refusalError({ reason: 'member_suspended' });
  return toPrincipal(session, member);
}

/**
 * A session acts for its member, with the role the provider's groups gave at sign-in (administrators by group), and
 * no key of its own: `keyId` names the session, so logs and usage scoping can tell it from a key.
 */
function toPrincipal(session: SessionRecord, member: Principal['member']): Principal {
  return {
    keyId: `session:${session.idHash.slice(0, 12)}`,
    memberId: member.id,
    generation: 1,
    currentGeneration: 1,
    keyState: 'active',
    keyExpiresAt: session.expiresAt,
    keyPolicy: {},
    // No key record: a session is never admitted for inference, so no key policy version applies.
    keyVersion: 0,
    member: { ...member, role: session.role },
    holder: false,
    session,
  };
}
