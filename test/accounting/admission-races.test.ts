import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit } from '../../shared/accounting/admit.ts';
import { settle } from '../../shared/accounting/settle.ts';
import { utcDay } from '../../shared/accounting/utc-buckets.ts';
import { authenticate } from '../../shared/auth/authenticate.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { GatewayError } from '../../shared/http/gateway-error.ts';
import type { Policy } from '../../shared/store/control-items.ts';
import { createKey, revokeKey } from '../../shared/store/key-store.ts';
import { createMember, getMember } from '../../shared/store/member-store.ts';
import type { RunningRecord } from '../../shared/store/usage-record-store.ts';
import { heldClock, testInstant } from '../support/pinned-clock.ts';
import { startTestStore } from '../support/test-store.ts';

let services: GatewayServices;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ services, close } = await startTestStore({ GATEWAY_CACHE_TTL_MS: '60000' }));
  // Every admission of a burst falls in one UTC minute and day, whenever the suite runs.
  services.now = heldClock(testInstant('2026-03-02T10:15:30.000Z'));
});
afterAll(async () => close());

async function principalWith(memberPolicy: Policy, keyPolicy: Policy = {}) {
  const now = services.now();
  const member = await createMember(services.control, { name: 'racer', role: 'member', policy: memberPolicy }, now);
  const issued = await createKey(
    services.control,
    { memberId: member.id, name: 'k', expiresAt: null, policy: keyPolicy, tag: 'gw' },
    now,
  );
  const principal = await authenticate(services, { authorization: `Bearer ${issued.key}` });
  return { principal, keyId: issued.id, memberId: member.id };
}

type Outcome = { admitted: true; requestId: string } | { admitted: false; code: string };

async function admitMany(
  principal: Awaited<ReturnType<typeof principalWith>>['principal'],
  count: number,
  reserve = 10,
) {
  return Promise.all(
    Array.from({ length: count }, async (_, index): Promise<Outcome> => {
      const requestId = `req_race_${principal.keyId}_${index}`;
      try {
        await admit(services, { principal, requestId, reserve });
        return { admitted: true, requestId };
      } catch (error) {
        if (error instanceof GatewayError) return { admitted: false, code: error.code };
        throw error;
      }
    }),
  );
}

function tally(outcomes: Outcome[]) {
  const codes = new Map<string, number>();
  for (const outcome of outcomes) {
    const code = outcome.admitted ? 'admitted' : outcome.code;
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  return Object.fromEntries(codes);
}

async function settleAll(outcomes: Outcome[], memberId: string, keyId: string, reserve: number) {
  const day = utcDay(services.now());
  await Promise.all(
    outcomes
      .filter((outcome): outcome is Extract<Outcome, { admitted: true }> => outcome.admitted)
      .map((outcome) => {
        const record: RunningRecord = {
          id: outcome.requestId,
          memberId,
          keyId,
          provider: 'p',
          model: 'p/m',
          connectionId: 'c',
          upstream: 'lb',
          wire: 'openai-chat',
          stream: false,
          startedAt: services.now().toISOString(),
          day,
          reserved: reserve,
          state: 'running',
        };
        return settle(services, {
          record,
          status: 200,
          completed: false,
          usage: undefined,
          endedAt: services.now(),
        });
      }),
  );
}

describe('admission under concurrency, on the real store engine', () => {
  it('admits exactly K of 500 concurrent requests against the daily allowance and never stores more', async () => {
    const { principal, memberId, keyId } = await principalWith({ dailyTokens: 370 });
    const outcomes = await admitMany(principal, 500, 10);
    expect(tally(outcomes)).toEqual({ admitted: 37, token_reservation_limit: 463 });
    const member = await getMember(services.control, memberId, true);
    const day = utcDay(services.now());
    expect(member?.tokenDays[day]).toBe(370);
    await settleAll(outcomes, memberId, keyId, 10);
    const settled = await getMember(services.control, memberId, true);
    expect(Object.keys(settled?.leases ?? {})).toEqual([]);
    expect(Object.keys(settled?.keyLeases[keyId] ?? {})).toEqual([]);
    expect(settled?.tokenDays[day]).toBe(370);
  }, 60_000);

  it('admits exactly the RPM limit of 500 concurrent requests', async () => {
    const { principal } = await principalWith({ rpm: 25 });
    expect(tally(await admitMany(principal, 500))).toEqual({ admitted: 25, rate_limit: 475 });
  }, 60_000);

  it('admits exactly the concurrency limit, and releases every lease at settlement', async () => {
    const { principal, memberId, keyId } = await principalWith({ concurrency: 40 }, { concurrency: 30 });
    const outcomes = await admitMany(principal, 500);
    expect(tally(outcomes)).toEqual({ admitted: 30, concurrency_limit: 470 });
    await settleAll(outcomes, memberId, keyId, 10);
    expect(tally(await admitMany(principal, 50))).toEqual({ admitted: 30, concurrency_limit: 20 });
  }, 60_000);

  it('admits nothing that started after a revocation returned, with 200 admissions racing it', async () => {
    const { principal, keyId } = await principalWith({});
    let revokedAt = Number.POSITIVE_INFINITY;
    const revocation = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await revokeKey(services.control, keyId);
      revokedAt = performance.now();
    })();
    // 150 admissions race the revocation; 50 more start once it has returned, still on the cached principal.
    const attempts = Array.from({ length: 200 }, async (_, index) => {
      if (index < 150) await new Promise((resolve) => setTimeout(resolve, index % 30));
      else await revocation;
      const startedAt = performance.now();
      try {
        await admit(services, { principal, requestId: `req_revoke_${index}`, reserve: 1 });
        return { startedAt, admitted: true };
      } catch (error) {
        expect(error).toMatchObject({ status: 401, code: 'key_revoked' });
        return { startedAt, admitted: false };
      }
    });
    const results = await Promise.all(attempts);
    expect(results.filter((result) => result.admitted && result.startedAt > revokedAt)).toEqual([]);
    expect(results.filter((result) => result.startedAt > revokedAt).length).toBeGreaterThanOrEqual(50);
    expect(results.some((result) => result.admitted)).toBe(true);
  }, 60_000);
});
