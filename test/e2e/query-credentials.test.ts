import { beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../shared/http/route-table.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { samplePath } from '../support/route-samples.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * Spec §4.1 rule 2, §5 rule 3: a credential in the query string is refused (400 query_credentials_refused) on
 * every route, whatever the parameter is called: by its usual names, and by a value that looks like a key —
 * the gateway's own, a holder's, a bearer token — under any name. Even a valid key is never used, and nothing
 * reaches the upstream. Parameters the routes do use (alt, period, scope, keyId, memberId) still work.
 */
const fixture = useGatewayFixture({
  connections: [{ provider: 'google', wire: 'gemini', path: '/v1beta', models: ['q'] }],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let memberKey: string;
let holderKey: string;

beforeAll(async () => {
  ({ upstream, gateway } = fixture);
  ({ key: memberKey } = fixture.member);
  await gateway.admin.call('POST', '/holders', { wallet: '0xquery', usd: 500 });
  ({ key: holderKey } = await gateway.admin.call<{ key: string }>('POST', '/holders/0xquery/keys'));
});

const pathOf = (route: (typeof routeTable)[number]) => samplePath(route, 'google/q');

const queries = () => [
  `x-goog-api-key=${encodeURIComponent(memberKey)}`,
  `authorization=${encodeURIComponent(`Bearer ${memberKey}`)}`,
  'token=anything',
  'access_token=anything',
  'API_KEY=anything',
  'client_secret=anything',
  `foo=${encodeURIComponent(memberKey)}`,
  `foo=${encodeURIComponent(gateway.adminKey)}`,
  `note=${encodeURIComponent(holderKey)}`,
  `q=${encodeURIComponent(`bearer abc.def`)}`,
  `header=Bearer+xyz`,
  encodeURIComponent(memberKey),
  `alt=sse&x=${encodeURIComponent(`prefix ${memberKey}`)}`,
];

describe('credentials in the query string', () => {
  it.each(routeTable)('are refused on $method $path, with or without a valid key in the header', async (route) => {
    for (const query of queries()) {
      for (const withHeader of [false, true]) {
        const response = await fetch(`${gateway.url}${pathOf(route)}?${query}`, {
          method: route.method,
          headers: {
            'content-type': 'application/json',
            ...(withHeader ? { authorization: `Bearer ${memberKey}` } : {}),
          },
          ...(route.method === 'POST' ? { body: '{"contents":[{"parts":[{"text":"hi"}]}]}' } : {}),
        });
        const body = JSON.stringify(await response.json());
        expect(response.status, `${route.method} ${pathOf(route)}?${query}`).toBe(400);
        expect(body, query).toContain('query_credentials_refused');
      }
    }
    expect(upstream.requests).toEqual([]);
  });

  it('leave the parameters the routes use alone', async () => {
    const usage = await fetch(`${gateway.url}/usage-api/v1/summary?period=today&scope=own&keyId=key_x`, {
      headers: { authorization: `Bearer ${memberKey}` },
    });
    expect(usage.status).toBe(200);
    const keys = await fetch(`${gateway.url}/admin/v1/keys?memberId=mem_x`, {
      headers: { authorization: `Bearer ${gateway.adminKey}` },
    });
    expect(keys.status).toBe(200);
    const stream = await fetch(`${gateway.url}/v1beta/models/google/q:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': memberKey, 'content-type': 'application/json' },
      body: '{"contents":[{"parts":[{"text":"hi"}]}]}',
    });
    expect(stream.status).toBe(200);
    await stream.text();
  });
});
