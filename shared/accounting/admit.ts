import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { AdmissionLimits } from '../store/admission.ts';
import { AdmissionRefusedError } from '../store/store-errors.ts';
import { reapExpiredLeases } from './reap.ts';
import { utcDay, utcMinute } from './utc-buckets.ts';

export interface Admission {
  requestId: string;
  memberId: string;
  keyId: string;
  day: string;
  reserved: number;
  admittedAt: Date;
}

function admissionLimits(principal: Principal): AdmissionLimits {
  const member = principal.member.policy;
  const key = principal.keyPolicy;
  return {
    dailyTokens: member.dailyTokens,
    memberRpm: member.rpm,
    keyRpm: key.rpm,
    memberConcurrency: member.concurrency,
    keyConcurrency: key.concurrency,
  };
}

const admissionAttempts = 3;

/**
 * Reserves a request's tokens and takes its leases in one atomic step of the store (the hot path). A refusal
 * names its reason; when leases of requests that died stand in the way, they are reaped and admission is tried
 * again, as it is when other admissions moved the state in between. Raises `AdmissionRefusedError`.
 */
export async function admit(
  services: GatewayServices,
  input: { principal: Principal; requestId: string; reserve: number; holderDailyRequests?: number | undefined },
): Promise<Admission> {
  const { principal, requestId, reserve } = input;
  const limits = { ...admissionLimits(principal), holderDailyRequests: input.holderDailyRequests };
  if (limits.dailyTokens !== undefined && reserve > limits.dailyTokens) {
    throw new AdmissionRefusedError({ reason: 'reservation_too_large', needed: reserve, limit: limits.dailyTokens });
  }
  for (let attempt = 1; ; attempt++) {
    const now = services.now();
    const admission: Admission = {
      requestId,
      memberId: principal.memberId,
      keyId: principal.keyId,
      day: utcDay(now),
      reserved: reserve,
      admittedAt: now,
    };
    const result = await services.store.admission.admit({
      memberId: principal.memberId,
      keyId: principal.keyId,
      generation: principal.generation,
      requestId,
      day: admission.day,
      minute: utcMinute(now),
      reserve,
      now: now.getTime(),
      leaseExpiresAt: now.getTime() + services.config.leaseTtlMs,
      limits,
    });
    if (result.admitted) return admission;
    // Leases of dead requests in the way are settled (here, or by whoever raced to it) before trying again.
    await reapExpiredLeases(services, result.expiredLeases);
    const worthRetrying = result.expiredLeases.length > 0 || result.refusal.reason === 'contention';
    if (!worthRetrying || attempt >= admissionAttempts) throw new AdmissionRefusedError(result.refusal);
  }
}
