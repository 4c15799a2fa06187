import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream, UpstreamBehaviour } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { postJson, type TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * Issue 11: on a translated route an upstream 200 whose body cannot be read answered 502 but never settled, so the
 * lease stayed until it expired and a member with concurrency 1 got 429 on everything meanwhile.
 */
const fixture = useGatewayFixture({
  connections: alphaRoutes,
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

const post = (key: string, path: string, body: Record<string, unknown>) => postJson(gateway, key, path, body);

const routes = [
  {
    name: 'K2.7 chat → messages',
    path: '/v1/chat/completions',
    body: { model: 'alpha-k2.7-code', messages: [{ role: 'user', content: 'hi' }] },
  },
  { name: 'Responses on K3 (→ chat)', path: '/v1/responses', body: { model: 'alpha-k3', input: 'hi' } },
  {
    name: 'Responses on K2.7 (→ chat → messages)',
    path: '/v1/responses',
    body: { model: 'alpha-k2.7-code', input: 'hi' },
  },
];
const unreadable: { name: string; behaviour: UpstreamBehaviour; code: string }[] = [
  {
    name: 'a 200 that is not an answer',
    behaviour: { type: 'error', status: 200, body: '<html>' },
    code: 'upstream_invalid_response',
  },
  {
    name: 'a 200 whose body breaks off',
    behaviour: { type: 'answer', resetAfterChunks: 1 },
    code: 'upstream_interrupted',
  },
];

describe('an unreadable upstream answer on a translated route', () => {
  for (const route of routes) {
    for (const { name, behaviour, code } of unreadable) {
      it(`${route.name}, ${name}: 502, settled, and the member's one slot is free again`, async () => {
        const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, concurrency: 1 });
        upstream.nextResponse(behaviour);
        const response = await post(key, route.path, route.body);
        expect(response.status).toBe(502);
        expect(await response.text()).toContain(code);
        const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
        expect(record).toMatchObject({ state: 'failed', status: 502, source: 'conservative' });
        expect(record.charge).toBe(record.reserved);
        expect((await memberAfterSettlement(gateway.host.services, memberId)).leases).toEqual({});

        const next = await post(key, route.path, route.body);
        expect(next.status, await next.text()).toBe(200);
      });
    }
  }
});
