import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

const fixture = useGatewayFixture({
  connections: ['beta', 'alpha'].map((provider) => ({ provider, wire: 'openai-chat' as const, upstream: provider })),
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

async function holderKey(wallet: string, usd: number): Promise<string> {
  await gateway.admin.call('POST', '/holders', { wallet, usd });
  const issued = await gateway.admin.call<{ key: string }>('POST', `/holders/${wallet}/keys`);
  expect(issued.key).toMatch(/^sk-hold-/);
  return issued.key;
}

async function outcome(apiKey: string, model: string) {
  const client = openaiClient(gateway, apiKey);
  try {
    await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    return 'ok';
  } catch (error) {
    if (error instanceof OpenAI.APIError) return `${error.status} ${error.code}`;
    throw error;
  }
}

describe('holder keys (spec §2.3)', () => {
  it('allow the tier`s daily request count on beta-4-31b, then refuse with 429', async () => {
    const key = await holderKey('0xtier10', 10);
    const outcomes = [];
    for (let request = 0; request < 11; request++) outcomes.push(await outcome(key, 'beta/beta-4-31b'));
    expect(outcomes.slice(0, 10)).toEqual(Array(10).fill('ok'));
    expect(outcomes[10]).toBe('429 holder_daily_limit');
    expect(upstream.requests.at(-1)?.json).toMatchObject({ model: 'beta-4-31b' });
  });

  it('give a 100-USD wallet 20 requests a UTC day, then 429, and 20 more the next UTC day', async () => {
    // The gateway's clock is held on chosen instants: noon UTC, then half past midnight UTC the next day. The
    // holdings figure is measured at noon, so on the next day it is 12.5 hours old and still counts.
    const services = gateway.host.services;
    const realNow = services.now;
    const today = realNow();
    const noon = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12);
    let clock = noon;
    services.now = () => new Date(clock);
    try {
      const key = await holderKey('0xdaily100', 100);
      const outcomes = [];
      for (let request = 0; request < 21; request++) outcomes.push(await outcome(key, 'beta-4-31b'));
      expect(outcomes.slice(0, 20)).toEqual(Array(20).fill('ok'));
      expect(outcomes[20]).toBe('429 holder_daily_limit');

      clock = noon + 12.5 * 3600_000;
      const nextDay = [];
      for (let request = 0; request < 21; request++) nextDay.push(await outcome(key, 'beta-4-31b'));
      expect(nextDay.slice(0, 20)).toEqual(Array(20).fill('ok'));
      expect(nextDay[20]).toBe('429 holder_daily_limit');

      // A day after it was measured, the holdings figure is stale: below every tier until it is set again.
      clock = noon + 24 * 3600_000 + 60_000;
      expect(await outcome(key, 'beta-4-31b')).toBe('403 holder_tier_insufficient');
      await gateway.admin.call('POST', '/holders', { wallet: '0xdaily100', usd: 100 });
      expect(await outcome(key, 'beta-4-31b')).toBe('429 holder_daily_limit');
    } finally {
      services.now = realNow;
    }
  });

  it('are refused on the four alpha models: the perk is paused there', async () => {
    const key = await holderKey('0xwhale', 5000);
    for (const model of ['alpha-k3', 'alpha-k3-256k', 'alpha-k2.7-code', 'alpha-k2.7-code-highspeed']) {
      expect(await outcome(key, model)).toBe('403 holder_perk_paused');
    }
    const { key: paidKey } = await gateway.admin.createMemberWithKey();
    expect(await outcome(paidKey, 'alpha-k3')).toBe('ok');
  });

  it('are refused below the lowest tier, and let in once holdings rise', async () => {
    const key = await holderKey('0xsmall', 9);
    expect(await outcome(key, 'beta-4-31b')).toBe('403 holder_tier_insufficient');
    await gateway.admin.call('POST', '/holders', { wallet: '0xsmall', usd: 150 });
    expect(await outcome(key, 'beta-4-31b')).toBe('ok');
  });

  it('keep their holder prefix when rotated, and the new secret works', async () => {
    const key = await holderKey('0xrotate', 150);
    const keys = await gateway.admin.call<{ keys: { id: string; memberId: string }[] }>(
      'GET',
      '/keys?memberId=wallet:0xrotate',
    );
    const rotated = await gateway.admin.call<{ key: string }>('POST', `/keys/${keys.keys[0]!.id}/rotate`);
    expect(rotated.key).toMatch(/^sk-hold-/);
    expect(await outcome(key, 'beta-4-31b')).toBe('401 key_rotated');
    expect(await outcome(rotated.key, 'beta-4-31b')).toBe('ok');
  });

  it('cannot take over an ordinary member or mint holder keys for one', async () => {
    const response = await fetch(`${gateway.url}/admin/v1/holders/not-a-wallet/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.adminKey}` },
    });
    expect(response.status).toBe(404);
  });
});

describe('holder commands of the admin CLI', () => {
  it('sets holdings and issues a holder key that works on beta', async () => {
    const { runInProcess } = await import('../cli/cli-harness.ts');
    const io = { env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey }, fetch: globalThis.fetch };
    const set = await runInProcess(['holder', 'set', '--wallet', '0xcli', '--usd', '250.5'], io);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('250.5 USD');
    const issued = await runInProcess(['holder', 'create-key', '--wallet', '0xcli', '--json'], io);
    expect(issued.code).toBe(0);
    const { key } = JSON.parse(issued.stdout) as { key: string };
    expect(await outcome(key, 'beta/beta-4-31b')).toBe('ok');
    expect((await runInProcess(['holder', 'set', '--wallet', '0xcli', '--usd', '-3'], io)).code).toBe(2);
  });
});
