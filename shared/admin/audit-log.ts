import { withRetries } from '../async-work/with-retries.ts';
import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { logger } from '../observability/logger.ts';
import type { AuditActor, AuditChange, AuditEntry } from '../store/audit-entries.ts';
import { newId } from '../store/ids.ts';

/**
 * Who made a change, as the audit log names them: the one place a principal becomes an actor. A key's principal
 * is `via: 'key'`; sign-in sessions (branch `sso`) extend this with `via: 'session'`.
 */
export function auditActorOf(principal: Principal): AuditActor {
  if (principal.session) return { memberId: principal.memberId, keyId: null, via: 'session' };
  return { memberId: principal.memberId, keyId: principal.keyId, via: 'key' };
}

/**
 * Writes a change's entry, right after the change succeeded (so a failed change never has one), retried a few
 * times. If the store still refuses it, the change stands and the entry is logged as an error, whole, so it is
 * never lost silently; the caller is answered as the change succeeded.
 */
export async function recordAudit(services: GatewayServices, actor: AuditActor, change: AuditChange): Promise<void> {
  const entry: AuditEntry = { id: newId('aud'), at: services.now().toISOString(), actor, ...change };
  try {
    await withRetries(() => services.store.audit.append(entry));
  } catch (error) {
    logger.error('audit entry not stored', { entry, error });
  }
}
