import { randomBytes } from 'node:crypto';
import { withRetries } from '../async-work/with-retries.ts';
import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { logger } from '../observability/logger.ts';
import type { AuditActor, AuditChange, AuditEntry } from '../store/audit-entries.ts';

/**
 * Who made a change, as the audit log names them: the one place a principal becomes an actor. A key's principal
 * is `via: 'key'`; sign-in sessions (branch `sso`) extend this with `via: 'session'`.
 */
export function auditActorOf(principal: Principal): AuditActor {
  if (principal.session) return { memberId: principal.memberId, keyId: null, via: 'session' };
  return { memberId: principal.memberId, keyId: principal.keyId, via: 'key' };
}

/**
 * An entry's id sorts by when it was made, to the microsecond on this process's monotonic clock: the log is read
 * newest first by (at, id), and two changes in the same millisecond (or under a held calendar clock) must still
 * come in the order they were made. The random tail keeps ids of different instances apart.
 */
function auditEntryId(): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  return `aud_${micros.toString(36).padStart(12, '0')}${randomBytes(5).toString('hex')}`;
}

/**
 * Writes a change's entry, right after the change succeeded (so a failed change never has one), retried a few
 * times. If the store still refuses it, the change stands and the entry is logged as an error, whole, so it is
 * never lost silently; the caller is answered as the change succeeded.
 */
export async function recordAudit(services: GatewayServices, actor: AuditActor, change: AuditChange): Promise<void> {
  const entry: AuditEntry = { id: auditEntryId(), at: services.now().toISOString(), actor, ...change };
  try {
    await withRetries(() => services.store.audit.append(entry));
  } catch (error) {
    logger.error('audit entry not stored', { entry, error });
  }
}
