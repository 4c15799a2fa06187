import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

/**
 * With the production cache (a minute of cached principals and connections), an administrator's change must
 * still apply to this process's very next request: the admin API clears its own process's caches. Every test
 * warms the caches with a successful request first, so a stale cache would answer the way it did before.
 */
let upstream: FakeUpstream;
let gateway: TestGateway;
let firstConnection: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway({ environment: { GATEWAY_CACHE_TTL_MS: '60000' } });
  firstConnection = await gateway.admin.createConnection({
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/first/v1`,
    models: ['cached-model'],
  });
  await gateway.admin.createConnection({
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/second/v1`,
    models: ['cached-model'],
  });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const messages = [{ role: 'user' as const, content: 'hi' }];
const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: gateway.baseURL, maxRetries: 0 });
const ask = (apiKey: string) => sdk(apiKey).chat.completions.create({ model: 'cached-model', messages });

/** The status and code of a request, refused or not. */
async function outcome(promise: Promise<unknown>): Promise<{ status: number | undefined; code: unknown }> {
  try {
    await promise;
    return { status: 200, code: undefined };
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status, code: error.code };
    throw error;
  }
}

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
