import type { GatewayServices } from '../config/gateway-services.ts';
import { logger } from '../observability/logger.ts';

export type SignInAuditAction = 'session.sign-in' | 'session.refused' | 'session.sign-out';

/**
 * Records a sign-in, a refusal or a sign-out: who (member, subject, e-mail when known), which client, and for a
 * refusal its code. Never a token, a code, a state or a session id.
 * TODO(adminapi): write these to the audit log (CONTRACTS §A, actor `via: 'session'`) once it lands on main; until
 * then they are structured log lines (CloudWatch on AWS, the terminal of `npm start`).
 */
export function auditSignIn(
  _services: GatewayServices,
  action: SignInAuditAction,
  details: {
    memberId?: string | undefined;
    subject?: string | undefined;
    email?: string | undefined;
    client?: 'console' | 'cli' | undefined;
    code?: string | undefined;
    /** Which check refused an ID token, in the verifying library's words (which never quote the token). */
    reason?: string | undefined;
  },
): void {
  logger.info('audit', { action, ...details });
}
