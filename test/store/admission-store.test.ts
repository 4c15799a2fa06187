import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { type AdmissionRequest, releaseLease, tryAdmit } from '../../shared/store/admission-store.ts';
import { createKey, revokeKey, rotateKey } from '../../shared/store/key-store.ts';
import { createMember, getMember, setMemberStatus } from '../../shared/store/member-store.ts';
import { startTestStore } from '../support/test-store.ts';

const tags = { keyTag: 'gw', holderTag: 'hold' };

let services: GatewayServices;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ services, close } = await startTestStore());
});
afterAll(async () => close());

async function memberWithKey() {
  const now = new Date();
  const member = await createMember(services.control, { name: 'm', role: 'member', policy: {} }, now);
  const key = await createKey(
    services.control,
    { memberId: member.id, name: 'k', expiresAt: null, policy: {}, tag: 'gw' },
    now,
  );
  return { memberId: member.id, keyId: key.id };
}

let sequence = 0;
function admission(ids: { memberId: string; keyId: string }, overrides: Partial<AdmissionRequest> = {}) {
  sequence++;
  return {
    ...ids,
    generation: 1,
    requestId: `req_${sequence}`,
    day: '2026-11-21',
    minute: '2026-11-21T10:00',
    reserve: 10,
    leaseExpiresAt: Date.now() + 60_000,
    limits: {},
    ...overrides,
  } satisfies AdmissionRequest;
}

describe('the admission write', () => {
  it('reserves up to the daily allowance and not one token more', async () => {
    const ids = await memberWithKey();
    const limits = { dailyTokens: 100 };
    const results = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      results.push(await tryAdmit(services.control, admission(ids, { reserve: 30, limits })));
    }
    expect(results).toEqual([true, true, true, false]);
    expect((await getMember(services.control, ids.memberId, true))?.tokenDays['2026-11-21']).toBe(90);
  });

  it('counts requests per minute for the member and for the key', async () => {
    const ids = await memberWithKey();
    const member = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      member.push(await tryAdmit(services.control, admission(ids, { limits: { memberRpm: 2 } })));
    }
    expect(member).toEqual([true, true, false]);
    expect(
      await tryAdmit(services.control, admission(ids, { minute: '2026-11-21T10:01', limits: { keyRpm: 1 } })),
    ).toBe(true);
    expect(
      await tryAdmit(services.control, admission(ids, { minute: '2026-11-21T10:01', limits: { keyRpm: 1 } })),
    ).toBe(false);
  });

  it('holds a concurrency lease until it is released', async () => {
    const ids = await memberWithKey();
    const first = admission(ids, { limits: { keyConcurrency: 1 } });
    expect(await tryAdmit(services.control, first)).toBe(true);
    expect(await tryAdmit(services.control, admission(ids, { limits: { keyConcurrency: 1 } }))).toBe(false);
    const release = { ...ids, requestId: first.requestId, day: first.day, chargeDelta: 0 };
    expect(await releaseLease(services.control, release)).toBe(true);
    expect(await tryAdmit(services.control, admission(ids, { limits: { keyConcurrency: 1 } }))).toBe(true);
  });

  it('settles once: a second release changes nothing', async () => {
    const ids = await memberWithKey();
    const request = admission(ids, { reserve: 50 });
    await tryAdmit(services.control, request);
    const release = { ...ids, requestId: request.requestId, day: request.day, chargeDelta: -20 };
    expect(await releaseLease(services.control, release)).toBe(true);
    expect(await releaseLease(services.control, release)).toBe(false);
    expect((await getMember(services.control, ids.memberId, true))?.tokenDays['2026-11-21']).toBe(30);
  });

  it('fails for a revoked key, a rotated secret and a suspended member', async () => {
    const revoked = await memberWithKey();
    await revokeKey(services.control, revoked.keyId);
    expect(await tryAdmit(services.control, admission(revoked))).toBe(false);

    const rotated = await memberWithKey();
    await rotateKey(services.control, rotated.keyId, tags, new Date());
    expect(await tryAdmit(services.control, admission(rotated))).toBe(false);
    expect(await tryAdmit(services.control, admission(rotated, { generation: 2 }))).toBe(true);

    const suspended = await memberWithKey();
    await setMemberStatus(services.control, suspended.memberId, 'suspended');
    expect(await tryAdmit(services.control, admission(suspended))).toBe(false);
  });

  it('lets a rotation that stopped after its first write be run again', async () => {
    const ids = await memberWithKey();
    // The first write of a rotation (the member item's generation) lands; the process dies before the key item.
    await services.control.client.send(
      new UpdateCommand({
        TableName: services.control.tableName,
        Key: { pk: `member#${ids.memberId}` },
        UpdateExpression: 'SET #keys.#kid.#generation = :two, #keys.#kid.#rotatedAt = :now',
        ExpressionAttributeNames: {
          '#keys': 'keys',
          '#kid': ids.keyId,
          '#generation': 'generation',
          '#rotatedAt': 'rotatedAt',
        },
        ExpressionAttributeValues: { ':two': 2, ':now': new Date().toISOString() },
      }),
    );
    // Within a minute it may still be running elsewhere; after that it is taken as stopped and carried on.
    await expect(rotateKey(services.control, ids.keyId, tags, new Date())).rejects.toMatchObject({
      code: 'key_changed',
    });
    const rotated = await rotateKey(services.control, ids.keyId, tags, new Date(Date.now() + 61_000));
    expect(rotated.key).toMatch(/^sk-gw-/);
    expect(await tryAdmit(services.control, admission(ids, { generation: 3 }))).toBe(true);
  });
});
