import { checkMemberStatus } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { GatewayError, unauthorized } from '../http/gateway-error.ts';
import { type AdmissionLimits, tryAdmit } from '../store/admission-store.ts';
import type { MemberItem } from '../store/control-items.ts';
import { getMember } from '../store/member-store.ts';
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

const tooMany = (code: string, message: string) =>
  new GatewayError(429, code, message, { headers: { 'retry-after': '1' } });

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

/**
 * Reserves a request's tokens and takes its leases with one conditional write (the hot path). Only when that
 * write is refused does the gateway read the member item to say exactly why, reap leases of requests that died,
 * and try again.
 */
export async function admit(
  services: GatewayServices,
  input: { principal: Principal; requestId: string; reserve: number; holderDailyRequests?: number | undefined },
): Promise<Admission> {
  const { principal, requestId, reserve } = input;
  const limits = { ...admissionLimits(principal), holderDailyRequests: input.holderDailyRequests };
  if (limits.dailyTokens !== undefined && reserve > limits.dailyTokens) {
    throw tooMany(
      'token_reservation_limit',
      `The request needs ${reserve} tokens reserved; the daily allowance is ${limits.dailyTokens}.`,
    );
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = services.now();
    const admission: Admission = {
      requestId,
      memberId: principal.memberId,
      keyId: principal.keyId,
      day: utcDay(now),
      reserved: reserve,
      admittedAt: now,
    };
    const admitted = await tryAdmit(services.control, {
      memberId: principal.memberId,
      keyId: principal.keyId,
      generation: principal.generation,
      requestId,
      day: admission.day,
      minute: utcMinute(now),
      reserve,
      leaseExpiresAt: now.getTime() + services.config.leaseTtlMs,
      limits,
    });
    if (admitted) return admission;
    const member = await getMember(services.control, principal.memberId, true);
    const reaped = member ? await reapExpiredLeases(services, member) : 0;
    if (reaped === 0) throwRefusal(member, principal, limits, reserve, now);
  }
  throw tooMany('admission_contention', 'The allowance is under heavy contention; try again.');
}

/** Names the check that refused admission. Returns only when nothing explains the refusal (a race): try again. */
function throwRefusal(
  member: MemberItem | undefined,
  principal: Principal,
  limits: AdmissionLimits,
  reserve: number,
  now: Date,
): void {
  if (!member) throw unauthorized('invalid_key', 'The API key is not valid.');
  checkMemberStatus(member.status);
  const keyState = member.keys[principal.keyId];
  if (!keyState) throw unauthorized('invalid_key', 'The API key is not valid.');
  if (keyState.state === 'revoked') throw unauthorized('key_revoked', 'The API key has been revoked.');
  if (keyState.generation !== principal.generation) {
    throw unauthorized('key_rotated', 'The API key has been rotated; use its new secret.');
  }
  const day = utcDay(now);
  const minute = utcMinute(now);
  const used = member.tokenDays[day] ?? 0;
  if (limits.dailyTokens !== undefined && used + reserve > limits.dailyTokens) {
    throw tooMany(
      'token_reservation_limit',
      `The daily token allowance is exhausted: ${used} of ${limits.dailyTokens} used or reserved, ${reserve} needed.`,
    );
  }
  if (limits.memberRpm !== undefined && (member.minutes[minute] ?? 0) >= limits.memberRpm) {
    throw tooMany('rate_limit', `The member's limit of ${limits.memberRpm} requests per minute is reached.`);
  }
  if (limits.keyRpm !== undefined && (member.keyMinutes[principal.keyId]?.[minute] ?? 0) >= limits.keyRpm) {
    throw tooMany('rate_limit', `This key's limit of ${limits.keyRpm} requests per minute is reached.`);
  }
  if (limits.memberConcurrency !== undefined && Object.keys(member.leases).length >= limits.memberConcurrency) {
    throw tooMany(
      'concurrency_limit',
      `The member's limit of ${limits.memberConcurrency} concurrent requests is reached.`,
    );
  }
  if (limits.holderDailyRequests !== undefined && (member.holderDays[day] ?? 0) >= limits.holderDailyRequests) {
    throw tooMany(
      'holder_daily_limit',
      `The wallet's ${limits.holderDailyRequests} holder requests for today (UTC) are used.`,
    );
  }
  const keyLeases = Object.keys(member.keyLeases[principal.keyId] ?? {}).length;
  if (limits.keyConcurrency !== undefined && keyLeases >= limits.keyConcurrency) {
    throw tooMany('concurrency_limit', `This key's limit of ${limits.keyConcurrency} concurrent requests is reached.`);
  }
}
