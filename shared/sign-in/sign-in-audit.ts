import { recordAudit } from '../admin/audit-log.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { logger } from '../observability/logger.ts';

export type SignInAuditAction = 'session.sign-in' | 'session.refused' | 'session.sign-out';

/**
 * Records a sign-in, a refusal or a sign-out in the audit log (actor `via: 'session'`, target the session by the
 * first characters of its id's hash, or the person for a refusal) and as an `audit` log line: who (member, subject,
 * e-mail when known), which client, and for a refusal its code and the failed check. Never a token, a code, a state
 * or a session id.
 */
export async function auditSignIn(
  services: GatewayServices,
  action: SignInAuditAction,
  details: {
    memberId?: string | undefined;
    sessionHash?: string | undefined;
    subject?: string | undefined;
    email?: string | undefined;
    client?: 'console' | 'cli' | undefined;
    code?: string | undefined;
    /** Which check refused an ID token, in the verifying library's words (which never quote the token). */
    reason?: string | undefined;
  },
): Promise<void> {
  const { sessionHash, ...recorded } = details;
  logger.info('audit', { action, ...recorded });
  await recordAudit(
    services,
    { memberId: details.memberId ?? '', keyId: null, via: 'session' },
    {
      action,
      target: { type: 'session', id: sessionHash?.slice(0, 12) ?? details.subject ?? 'unknown' },
      before: null,
      after: Object.fromEntries(Object.entries(recorded).filter(([, value]) => value !== undefined)),
    },
  );
}
