import type { Principal } from '../auth/principal.ts';
import { type GatewayServices, trackBackground } from '../config/gateway-services.ts';
import type { AdmissionLimits } from '../store/admission.ts';
import { AdmissionRefusedError } from '../store/store-errors.ts';
import type { RunningRecord } from '../store/usage-records.ts';
import { reapExpiredLeases } from './reap.ts';
import { utcDay, utcMinute } from './utc-buckets.ts';

export interface Admission {
  requestId: string;
  memberId: string;
  keyId: string;
  day: string;
  reserved: number;
  admittedAt: Date;
  /** With a description given: the record that shows the request running, as of its admission. */
  running?: RunningAdmission;
}

export interface RunningAdmission {
  record: RunningRecord;
  /** The store wrote it in the admission itself; otherwise the caller writes it (`records.putRunning`). */
  written: boolean;
}

interface AdmitInput {
  principal: Principal;
  requestId: string;
  reserve: number;
  holderDailyRequests?: number | undefined;
  /** What the running record says of the request; absent, no record is built (tests of admission alone). */
  describes?: RecordDescription | undefined;
}

/** What a usage record says of a request beyond what admission decides. */
export type RecordDescription = Omit<
  RunningRecord,
  'id' | 'memberId' | 'keyId' | 'startedAt' | 'day' | 'reserved' | 'state'
>;

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
 * Reserves a request's tokens and takes its leases in one atomic step of the store (the hot path), handing the
 * store the request's running record to write in the same step where the engine can. A refusal names its reason;
 * when leases of requests that died stand in the way, they are reaped and admission is tried again, as it is when
 * other admissions moved the state in between. Raises `AdmissionRefusedError`.
 */
export async function admit(
  services: GatewayServices,
  input: AdmitInput & { describes: RecordDescription },
): Promise<Admission & { running: RunningAdmission }>;
export async function admit(services: GatewayServices, input: AdmitInput): Promise<Admission>;
export async function admit(services: GatewayServices, input: AdmitInput): Promise<Admission> {
  const { principal, requestId, reserve } = input;
  const limits = { ...admissionLimits(principal), holderDailyRequests: input.holderDailyRequests };
  if (limits.dailyTokens !== undefined && reserve > limits.dailyTokens) {
    throw new AdmissionRefusedError({ reason: 'reservation_too_large', needed: reserve, limit: limits.dailyTokens });
  }
  for (let attempt = 1; ; attempt++) {
    const now = services.now();
    const day = utcDay(now);
    const record: RunningRecord | undefined = input.describes && {
      ...input.describes,
      id: requestId,
      memberId: principal.memberId,
      keyId: principal.keyId,
      startedAt: now.toISOString(),
      day,
      reserved: reserve,
      state: 'running',
    };
    const result = await services.store.admission.admit({
      memberId: principal.memberId,
      keyId: principal.keyId,
      generation: principal.generation,
      requestId,
      day,
      minute: utcMinute(now),
      reserve,
      now: now.getTime(),
      leaseExpiresAt: now.getTime() + services.config.leaseTtlMs,
      limits,
      policyVersions: { member: principal.member.version, key: principal.keyVersion },
      running: record,
    });
    if (result.admitted) {
      return {
        requestId,
        memberId: principal.memberId,
        keyId: principal.keyId,
        day,
        reserved: reserve,
        admittedAt: now,
        ...(record && { running: { record, written: result.recordWritten === true } }),
      };
    }
    // Leases of dead requests in the way are settled (here, or by whoever raced to it) before trying again.
    await reapExpiredLeases(services, result.expiredLeases);
    const worthRetrying = result.expiredLeases.length > 0 || result.refusal.reason === 'contention';
    if (!worthRetrying || attempt >= admissionAttempts) {
      if (result.refusal.reason === 'holder_daily') {
        // Beside the refusal, not before it: the caller's 429 never waits for the alert.
        trackBackground(
          services,
          services.alerts.holderExhausted({
            memberId: principal.memberId,
            keyId: principal.keyId,
            limit: result.refusal.limit,
            day,
          }),
        );
      }
      throw new AdmissionRefusedError(result.refusal);
    }
  }
}
