import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { outcome } from '../support/openai-refusal.ts';
import { anthropicClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * With the production cache (a minute of cached principals and connections), an administrator's change must
 * still apply to this process's very next request: the admin API clears its own process's caches. Every test
 * warms the caches with a successful request first, so a stale cache would answer the way it did before.
 */
const fixture = useGatewayFixture({
  environment: { GATEWAY_CACHE_TTL_MS: '60000' },
  connections: [
    { provider: 'openai', wire: 'openai-chat', path: '/first/v1', models: ['cached-model'] },
    { provider: 'openai', wire: 'openai-chat', path: '/second/v1', models: ['cached-model'] },
    { provider: 'anthropic', wire: 'anthropic-messages', models: ['counted-model'] },
  ],
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let firstConnection: string;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  [firstConnection = ''] = fixture.connectionIds;
});

const messages = [{ role: 'user' as const, content: 'hi' }];
const sdk = (apiKey: string) => openaiClient(gateway, apiKey);
const ask = (apiKey: string) => sdk(apiKey).chat.completions.create({ model: 'cached-model', messages });

/** `GET /v1/models` authenticates but admits nothing: only the principal cache stands between it and the store. */
const listModels = (apiKey: string) => sdk(apiKey).models.list();

describe('admin changes apply to the next request despite the cache (GATEWAY_CACHE_TTL_MS=60000)', () => {
  it('a rotated key`s old secret is refused with 401 key_rotated; the new secret works', async () => {
    const { keyId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
    await ask(key);
    await listModels(key);

    const rotated = await gateway.admin.call<{ key: string }>('POST', `/keys/${keyId}/rotate`);
    expect(await outcome(ask(key))).toEqual({ status: 401, code: 'key_rotated' });
    expect(await outcome(listModels(key))).toEqual({ status: 401, code: 'key_rotated' });
    expect(upstream.requests).toHaveLength(1);
    expect(await outcome(ask(rotated.key))).toEqual({ status: 200, code: undefined });
  });

  it('a suspended member is refused with 403, on inference and on the models read alike', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
    await ask(key);
    await listModels(key);

    await gateway.admin.call('POST', `/members/${memberId}/suspend`);
    expect(await outcome(ask(key))).toEqual({ status: 403, code: 'member_suspended' });
    expect(await outcome(listModels(key))).toEqual({ status: 403, code: 'member_suspended' });
    expect(upstream.requests).toHaveLength(1);

    await gateway.admin.call('POST', `/members/${memberId}/enable`);
    expect(await outcome(ask(key))).toEqual({ status: 200, code: undefined });
  });

  it('a disabled connection is never called again; the model`s other connection serves every request', async () => {
    const { key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
    await ask(key);
    await ask(key);
    const pathsBefore = upstream.requests.map((request) => request.path.split('/')[1]);
    expect(pathsBefore.sort()).toEqual(['first', 'second']);

    await gateway.admin.call('POST', `/connections/${firstConnection}/disable`);
    upstream.reset();
    for (let request = 0; request < 4; request++) await ask(key);
    expect(upstream.requests.map((request) => request.path.split('/')[1])).toEqual(Array(4).fill('second'));

    await gateway.admin.call('POST', `/connections/${firstConnection}/enable`);
  });
});

/** A token count with the official Anthropic SDK: it authenticates and routes, but admits and records nothing. */
async function countTokens(apiKey: string): Promise<{ status: number | undefined; code: unknown }> {
  const client = anthropicClient(gateway, apiKey);
  try {
    await client.messages.countTokens({ model: 'counted-model', messages: [{ role: 'user', content: 'hi' }] });
    return { status: 200, code: undefined };
  } catch (error) {
    if (!(error instanceof Anthropic.APIError)) throw error;
    const body = error.error as { error?: { code?: unknown } } | undefined;
    return { status: error.status, code: body?.error?.code };
  }
}

/** The usage API's summary, read with the key itself. */
async function readUsage(apiKey: string): Promise<{ status: number; code: unknown }> {
  const response = await fetch(`${gateway.url}/usage-api/v1/summary`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const body = (await response.json()) as { error?: { code?: unknown } };
  return { status: response.status, code: response.ok ? undefined : body.error?.code };
}

describe('a change another process made (another Lambda instance) applies to the next request here', () => {
  // The admin API clears only its own process's caches. These changes go to the store directly, as another
  // instance's admin call would, leaving this process's caches warm: every route must still see them.
  it('a key revoked elsewhere is refused by inference, token counts, model lists and usage reads', async () => {
    const { keyId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
    expect(await outcome(ask(key))).toEqual({ status: 200, code: undefined });
    expect(await countTokens(key)).toEqual({ status: 200, code: undefined });
    expect(await outcome(listModels(key))).toEqual({ status: 200, code: undefined });
    expect(await readUsage(key)).toEqual({ status: 200, code: undefined });
    upstream.reset();

    await gateway.host.services.store.keys.revoke(keyId);
    expect(await outcome(ask(key))).toEqual({ status: 401, code: 'key_revoked' });
    expect(await countTokens(key)).toEqual({ status: 401, code: 'key_revoked' });
    expect(await outcome(listModels(key))).toEqual({ status: 401, code: 'key_revoked' });
    expect(await readUsage(key)).toEqual({ status: 401, code: 'key_revoked' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('a member suspended elsewhere is refused the same way', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
    expect(await outcome(ask(key))).toEqual({ status: 200, code: undefined });
    expect(await countTokens(key)).toEqual({ status: 200, code: undefined });
    upstream.reset();

    await gateway.host.services.store.members.setStatus(memberId, 'suspended');
    expect(await outcome(ask(key))).toEqual({ status: 403, code: 'member_suspended' });
    expect(await countTokens(key)).toEqual({ status: 403, code: 'member_suspended' });
    expect(await outcome(listModels(key))).toEqual({ status: 403, code: 'member_suspended' });
    expect(await readUsage(key)).toEqual({ status: 403, code: 'member_suspended' });
    expect(upstream.requests).toHaveLength(0);
  });
});
