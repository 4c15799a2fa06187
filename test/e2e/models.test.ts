import Anthropic from '@anthropic-ai/sdk';
import LegacyAnthropic from 'anthropic-sdk-legacy';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

const unreachable = 'http://127.0.0.1:9/v1';

/**
 * Served now: acme-1 (chat), acme-2 (chat and messages), the beta model (its chat route, on upstream beta) and the
 * two K3 models (alpha's chat route, on upstream alpha). Not served: gamma (no connection), the K2.7 models (no
 * messages-style alpha connection), old-1 (its connection is disabled), side-1 (only on upstream lb2).
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'acme', wire: 'openai-chat', baseUrl: unreachable, models: ['acme-1', 'acme-2'] },
    { provider: 'acme', wire: 'anthropic-messages', baseUrl: unreachable, models: ['acme-2'] },
    { provider: 'beta', wire: 'openai-chat', baseUrl: unreachable, upstream: 'beta' },
    { provider: 'alpha', wire: 'openai-chat', baseUrl: unreachable, upstream: 'alpha' },
    { provider: 'old', wire: 'openai-chat', baseUrl: unreachable, models: ['old-1'] },
    { provider: 'side', wire: 'openai-chat', baseUrl: unreachable, models: ['side-1'], upstream: 'lb2' },
  ],
});
let gateway: TestGateway;
let key: string;

const servedNow = ['acme/acme-1', 'acme/acme-2', 'alpha/alpha-k3', 'alpha/alpha-k3-256k', 'beta/beta-4-31b'];

beforeAll(async () => {
  ({ gateway } = fixture);
  await gateway.admin.call('POST', `/connections/${fixture.connectionIds[4]}/disable`);
  ({ key } = await gateway.admin.createMemberWithKey());
});

function openai(apiKey: string, baseURL = gateway.baseURL) {
  return new OpenAI({ apiKey, baseURL, maxRetries: 0 });
}

async function openaiModels(apiKey: string, baseURL?: string) {
  const page = await openai(apiKey, baseURL).models.list();
  return page.data as unknown as { id: string; object: string; owned_by: string; wires: string[] }[];
}

async function holderKey(wallet: string, usd: number): Promise<string> {
  await gateway.admin.call('POST', '/holders', { wallet, usd });
  return (await gateway.admin.call<{ key: string }>('POST', `/holders/${wallet}/keys`)).key;
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error,
  );
}

describe('GET /v1/models with the openai SDK (spec §2.1)', () => {
  it('lists exactly the models an enabled connection serves now, each with the wires that reach it', async () => {
    const models = await openaiModels(key);
    expect(models.map((model) => model.id)).toEqual(servedNow);
    const wiresOf = (id: string) => models.find((model) => model.id === id)?.wires;
    // A chat connection answers chat natively, and Responses and messages through the translation paths.
    expect(wiresOf('acme/acme-1')).toEqual(['openai-chat', 'openai-responses', 'anthropic-messages']);
    expect(wiresOf('acme/acme-2')?.toSorted()).toEqual([
      'anthropic-count-tokens',
      'anthropic-messages',
      'openai-chat',
      'openai-responses',
    ]);
    expect(wiresOf('beta/beta-4-31b')).toEqual(['openai-chat', 'openai-responses', 'anthropic-messages']);
    // K3 speaks chat upstream; Responses and messages reach it through the translation paths.
    expect(wiresOf('alpha/alpha-k3')).toEqual(['openai-chat', 'openai-responses', 'anthropic-messages']);
    expect(models[0]).toMatchObject({ object: 'model', owned_by: 'acme' });
  });

  it('lists a model served only on another upstream under that upstream, by path prefix or header', async () => {
    expect((await openaiModels(key, `${gateway.url}/lb2/v1`)).map((model) => model.id)).toEqual(['side/side-1']);
    const viaHeader = await fetch(`${gateway.baseURL}/models`, {
      headers: { authorization: `Bearer ${key}`, 'x-gateway-upstream': 'lb2' },
    });
    expect(((await viaHeader.json()) as { data: { id: string }[] }).data.map((model) => model.id)).toEqual([
      'side/side-1',
    ]);
  });

  it('lists what the member ∩ key policy allows', async () => {
    const { key: narrow } = await gateway.admin.createMemberWithKey(
      { providers: ['acme', 'beta', 'gamma'] },
      { models: ['acme/acme-2', 'beta/beta-4-31b', 'alpha/alpha-k3', 'gamma/gamma'] },
    );
    expect((await openaiModels(narrow)).map((model) => model.id)).toEqual(['acme/acme-2', 'beta/beta-4-31b']);
  });

  it('shows a holder key only the beta model its perk covers, and only while its tier allows', async () => {
    expect((await openaiModels(await holderKey('0xlist250', 250))).map((model) => model.id)).toEqual([
      'beta/beta-4-31b',
    ]);
    expect(await openaiModels(await holderKey('0xlist5', 5))).toEqual([]);
  });

  it('retrieves one model by its id with a slash, an alias or a bare name; 404 for unknown or not callable', async () => {
    const client = openai(key);
    expect(await client.models.retrieve('acme/acme-1')).toMatchObject({
      id: 'acme/acme-1',
      object: 'model',
      wires: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    });
    expect((await client.models.retrieve('beta-beta-4-31b')).id).toBe('beta/beta-4-31b');
    expect((await client.models.retrieve('acme-1')).id).toBe('acme/acme-1');
    expect((await client.models.retrieve('lb2/side/side-1')).id).toBe('side/side-1');

    const unknown = await errorOf(client.models.retrieve('acme/nope'));
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({ status: 404, code: 'unknown_model' });
    for (const [id, reason] of [
      ['gamma/gamma', 'No enabled connection serves "gamma/gamma" on upstream "lb"'],
      ['old/old-1', 'No enabled connection serves "old/old-1" on upstream "lb"'],
      ['alpha/alpha-k2.7-code', 'No enabled connection serves "alpha/alpha-k2.7-code"'],
    ] as const) {
      const refused = await errorOf(client.models.retrieve(id));
      expect(refused, id).toBeInstanceOf(OpenAI.NotFoundError);
      expect(refused, id).toMatchObject({ code: 'model_unavailable' });
      expect((refused as Error).message, id).toContain(reason);
    }
    const { key: narrow } = await gateway.admin.createMemberWithKey({ providers: ['beta'] });
    const denied = await errorOf(openai(narrow).models.retrieve('acme/acme-1'));
    expect(denied).toMatchObject({ status: 404, code: 'model_unavailable' });
    expect((denied as Error).message).toContain('may not use the model "acme/acme-1"');
  });

  it('needs a valid key, and answers another method with 405', async () => {
    const missing = await fetch(`${gateway.baseURL}/models`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_key' } });
    const post = await fetch(`${gateway.baseURL}/models/acme/acme-1`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('GET /v1/models with the Anthropic SDKs', () => {
  for (const [name, Client] of [
    ['1.x', Anthropic],
    ['0.x', LegacyAnthropic],
  ] as const) {
    it(`gives ${name} Anthropic-shaped entries, page by page with limit and after_id`, async () => {
      const client = new Client({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
      const first = await client.models.list({ limit: 2 });
      expect(first.data.map((model) => model.id)).toEqual(servedNow.slice(0, 2));
      expect(first).toMatchObject({ has_more: true, first_id: servedNow[0], last_id: servedNow[1] });
      expect(first.data[1]).toEqual({
        type: 'model',
        id: 'acme/acme-2',
        display_name: 'acme-2',
        created_at: '1970-01-01T00:00:00Z',
        max_input_tokens: null,
        max_tokens: null,
        lifecycle: 'active',
        capabilities: null,
        deprecated_at: null,
        retires_at: null,
        line: null,
      });
      const all: string[] = [];
      for await (const model of client.models.list({ limit: 2 })) all.push(model.id);
      expect(all).toEqual(servedNow);
      const beta = (await client.models.list()).data.find((model) => model.id === 'beta/beta-4-31b');
      expect(beta).toMatchObject({ display_name: 'Beta 4 31B', max_input_tokens: 131_000, max_tokens: 32_768 });
    });
  }

  it('pages backwards with before_id, and refuses a bad limit in its own envelope', async () => {
    const client = anthropicClient(gateway, key);
    const before = await client.models.list({ before_id: 'beta/beta-4-31b', limit: 2 });
    expect(before.data.map((model) => model.id)).toEqual(['alpha/alpha-k3', 'alpha/alpha-k3-256k']);
    expect(before).toMatchObject({ has_more: true, first_id: 'alpha/alpha-k3' });
    const refused = await errorOf(client.models.list({ limit: 0 }));
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { code: 'invalid_query' },
    });
  });

  it('retrieves one model, and says 404 in the Anthropic envelope', async () => {
    const client = anthropicClient(gateway, key);
    expect(await client.models.retrieve('beta/beta-4-31b')).toMatchObject({
      type: 'model',
      id: 'beta/beta-4-31b',
      display_name: 'Beta 4 31B',
    });
    const missing = await errorOf(client.models.retrieve('gamma/gamma'));
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect((missing as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', code: 'model_unavailable' },
    });
  });
});
