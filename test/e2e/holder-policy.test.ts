import { beforeAll, describe, expect, it } from 'vitest';
import { holderTiers } from '../../shared/accounting/holder-tiers.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

const fixture = useGatewayFixture({
  connections: [{ provider: 'beta', wire: 'openai-chat', upstream: 'beta' }],
  member: {},
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let holderKey: string;

beforeAll(async () => {
  ({ upstream, gateway } = fixture);
  await gateway.admin.call('POST', '/holders', { wallet: '0xpolicy', usd: 150 });
  ({ key: holderKey } = await gateway.admin.call<{ key: string }>('POST', '/holders/0xpolicy/keys'));
});

const expectedRecord = () => ({
  model_id: 'beta-beta-4-31b',
  endpoint: gateway.url,
  wallet_key_prefix: 'sk-hold-',
  tiers: [
    { holdings_usd_24h_min: 10, requests_per_day: 10 },
    { holdings_usd_24h_min: 100, requests_per_day: 20 },
    { holdings_usd_24h_min: 1000, requests_per_day: 100 },
  ],
  limit_scope:
    "Counts only the holder daily request count; the upstream provider's native model and API limits still apply.",
});

describe('GET /v1/holder-policy (spec §2.3)', () => {
  it("gives any valid key exactly the record's fields, the tiers from the holder tier data", async () => {
    for (const apiKey of [fixture.member.key, holderKey]) {
      const client = openaiClient(gateway, apiKey);
      const record = await client.get('/holder-policy');
      expect(record).toEqual(expectedRecord());
    }
    expect(expectedRecord().tiers).toEqual(
      holderTiers.map((tier) => ({
        holdings_usd_24h_min: tier.holdingsUsd24hMin,
        requests_per_day: tier.requestsPerDay,
      })),
    );
    const prefixed = await fetch(`${gateway.url}/beta/v1/holder-policy`, {
      headers: { authorization: `Bearer ${holderKey}` },
    });
    expect(await prefixed.json()).toEqual(expectedRecord());
  });

  it('needs a valid key, refused in the envelope of the client that asked', async () => {
    const missing = await fetch(`${gateway.baseURL}/holder-policy`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_key' } });
    const anthropic = await fetch(`${gateway.baseURL}/holder-policy`, {
      headers: { 'x-api-key': 'sk-gw-unknown', 'anthropic-version': '2023-06-01' },
    });
    expect(anthropic.status).toBe(401);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { code: 'invalid_key' } });
  });

  it("accepts the record's model_id as a model id: a holder key calls beta/beta-4-31b with it", async () => {
    const client = openaiClient(gateway, holderKey);
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'beta-beta-4-31b', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(completion.choices[0]?.message.content).toBe('echo: hi');
    expect(upstream.requests[0]?.json).toMatchObject({ model: 'beta-4-31b' });
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    expect(record).toMatchObject({ provider: 'beta', model: 'beta/beta-4-31b', upstream: 'beta' });

    const anthropic = anthropicClient(gateway, holderKey);
    expect((await anthropic.models.retrieve('beta-beta-4-31b')).id).toBe('beta/beta-4-31b');
  });
});
