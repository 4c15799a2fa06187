import { createAnthropic } from '@ai-sdk/anthropic';
import { APICallError, generateText } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { googleApiErrorOf } from '../support/google-refusal.ts';
import { refusal } from '../support/openai-refusal.ts';
import { anthropicClient, googleClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * A connection declares, per model, its context window and largest output. Reservations and the context-window
 * check use them, the model lists show them where their shape has a field, and a connection that declares none
 * keeps the catalog's limits, or none. The case: the AI SDK sends `max_tokens: 128000` for a messages model
 * it does not know, which a 100,000-token allowance refuses; declared with a largest output of 8,192, the request is
 * capped to it, admitted, and the upstream is asked for 8,192.
 */
const fixture = useGatewayFixture({
  connections: [
    {
      provider: 'anthropic',
      wire: 'anthropic-messages',
      path: '',
      models: [{ id: 'claude-next', contextWindow: 200_000, maxOutput: 8_192 }, 'claude-undeclared'],
    },
    { provider: 'google', wire: 'gemini', path: '', models: [{ id: 'gemini-small', contextWindow: 1_000 }] },
    // A catalog model whose upstream gives less than the catalog says.
    { provider: 'beta', wire: 'openai-chat', upstream: 'beta', models: [{ id: 'beta-4-31b', maxOutput: 1_024 }] },
    { provider: 'gamma', wire: 'openai-chat', upstream: 'gamma' },
  ],
  member: { dailyTokens: 100_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
});

/** The AI SDK's Anthropic provider, as a user points it at the gateway; it notes the request id of each answer. */
const requestIds: string[] = [];
function aiSdkAnthropic() {
  return createAnthropic({
    apiKey: key,
    baseURL: `${gateway.url}/v1`,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      requestIds.push(response.headers.get('x-request-id') ?? '');
      return response;
    },
  });
}

describe('declared limits of a model outside the catalog', () => {
  it('refuses the AI SDK’s 128,000-token default where nothing is declared, against a 100,000 allowance', async () => {
    const error = await generateText({
      model: aiSdkAnthropic()('anthropic/claude-undeclared'),
      prompt: 'hello',
      maxRetries: 0,
    }).catch((thrown: unknown) => thrown);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 429, requestBodyValues: { max_tokens: 128_000 } });
    expect((error as APICallError).responseBody).toContain('token_reservation_limit');
    expect(upstream.requests).toHaveLength(0);
  });

  it('caps it to the declared largest output: admitted, reserved and sent upstream as 8,192', async () => {
    const result = await generateText({
      model: aiSdkAnthropic()('anthropic/claude-next'),
      prompt: 'hello',
      maxRetries: 0,
    });
    expect(result.text).toBe('echo: hello');
    expect(upstream.requests[0]?.json).toMatchObject({ model: 'claude-next', max_tokens: 8_192 });
    const record = await settledRecord(gateway.host.services, requestIds.at(-1) ?? '');
    expect(record.reserved).toBeGreaterThan(8_192);
    expect(record.reserved).toBeLessThan(8_192 + 100);
  });

  it('keeps a request below the declared largest output as it is', async () => {
    const anthropic = anthropicClient(gateway, key);
    await anthropic.messages.create({
      model: 'anthropic/claude-next',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(upstream.requests[0]?.json).toMatchObject({ max_tokens: 300 });
  });

  it('refuses input that surely exceeds the declared context window, before anything is reserved', async () => {
    const google = googleClient(gateway, key);
    const error = await googleApiErrorOf(
      google.models.generateContent({ model: 'google/gemini-small', contents: 'word '.repeat(2_000) }),
    );
    expect(error).toMatchObject({ status: 400 });
    expect(error.message).toContain('context_window_exceeded');
    expect(error.message).toContain('1000 tokens of context');
    await google.models.generateContent({ model: 'google/gemini-small', contents: 'a short one' });
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('declared limits of a catalog model', () => {
  it('go before the catalog’s: a request above the declared largest output is capped', async () => {
    const openai = openaiClient(gateway, key);
    await openai.chat.completions.create({
      model: 'beta/beta-4-31b',
      max_tokens: 4_000,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(upstream.requests[0]?.json).toMatchObject({ max_tokens: 1_024 });
  });

  it('leave a model whose connection declares none with the catalog’s rules', async () => {
    const openai = openaiClient(gateway, key);
    // Gamma has no limits in the catalog, so nothing caps or refuses its output but the allowance.
    await openai.chat.completions.create({
      model: 'gamma/gamma',
      max_tokens: 90_000,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(upstream.requests[0]?.json).toMatchObject({ max_tokens: 90_000 });
  });
});

describe('model lists show declared limits where their shape has a field', () => {
  it('in generate-content’s inputTokenLimit and outputTokenLimit', async () => {
    const google = googleClient(gateway, key);
    const small = await google.models.get({ model: 'google/gemini-small' });
    expect(small).toMatchObject({ inputTokenLimit: 1_000 });
    expect(small.outputTokenLimit).toBeUndefined();
    const listed = [];
    for await (const model of await google.models.list()) listed.push(model);
    expect(listed.find((model) => model.name === 'models/anthropic/claude-next')).toMatchObject({
      inputTokenLimit: 200_000,
      outputTokenLimit: 8_192,
    });
    expect(listed.find((model) => model.name === 'models/beta/beta-4-31b')).toMatchObject({
      inputTokenLimit: 131_000,
      outputTokenLimit: 1_024,
    });
  });

  it('in the Anthropic shape’s max_input_tokens and max_tokens', async () => {
    const response = await fetch(`${gateway.url}/v1/models?limit=100`, {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    });
    const { data } = (await response.json()) as {
      data: { id: string; max_input_tokens: unknown; max_tokens: unknown }[];
    };
    expect(data.find((model) => model.id === 'anthropic/claude-next')).toMatchObject({
      max_input_tokens: 200_000,
      max_tokens: 8_192,
    });
    expect(data.find((model) => model.id === 'anthropic/claude-undeclared')).toMatchObject({
      max_input_tokens: null,
      max_tokens: null,
    });
  });
});

describe('declaring limits through the admin API', () => {
  const connection = (models: unknown) => ({
    provider: 'acme',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    apiKey: 'credential',
    models,
  });
  async function create(models: unknown) {
    const response = await fetch(`${gateway.url}/admin/v1/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(connection(models)),
    });
    return { status: response.status, body: (await response.json()) as { connection?: { id: string } } };
  }

  it('stores models with their limits beside plain ids, and lists them', async () => {
    const created = await create([
      { id: 'acme-1', contextWindow: 64_000, maxOutput: 4_000 },
      'acme-2',
      { id: 'acme-3' },
    ]);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      connection: {
        models: ['acme-1', 'acme-2', 'acme-3'],
        modelLimits: [{ id: 'acme-1', contextWindow: 64_000, maxOutput: 4_000 }],
      },
    });
    const { connections } = await gateway.admin.call<{ connections: { id: string; modelLimits: unknown }[] }>(
      'GET',
      '/connections',
    );
    const stored = connections.find((found) => found.id === created.body.connection?.id);
    expect(stored?.modelLimits).toEqual([{ id: 'acme-1', contextWindow: 64_000, maxOutput: 4_000 }]);
  });

  it.each([
    [
      'a largest output above the window',
      [{ id: 'x', contextWindow: 1_000, maxOutput: 2_000 }],
      'above its contextWindow',
    ],
    ['a model declared twice', [{ id: 'x', maxOutput: 10 }, 'x'], 'declared more than once'],
    ['a limit that is not a whole number', [{ id: 'x', maxOutput: 10.5 }], 'models'],
    ['a limit of zero', [{ id: 'x', contextWindow: 0 }], 'models'],
    ['a limit past 100,000,000', [{ id: 'x', contextWindow: 100_000_001 }], 'models'],
    ['an unknown field', [{ id: 'x', maxTokens: 10 }], 'models'],
    ['an id of 257 characters', [{ id: 'x'.repeat(257), maxOutput: 10 }], 'models'],
    ['501 models', Array.from({ length: 501 }, (_, index) => ({ id: `m${index}`, maxOutput: 10 })), 'models'],
  ])('refuses %s with 400 invalid_request, storing nothing', async (_label, models, message) => {
    const before = await gateway.admin.call<{ connections: unknown[] }>('GET', '/connections');
    const refused = await create(models);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining(message) },
    });
    const after = await gateway.admin.call<{ connections: unknown[] }>('GET', '/connections');
    expect(after.connections).toHaveLength(before.connections.length);
  });

  it('keeps answering the earlier plain list of ids', async () => {
    const created = await create(['plain-1', 'plain-2']);
    expect(created.body).toMatchObject({ connection: { models: ['plain-1', 'plain-2'], modelLimits: [] } });
  });

  it('refuses a request above a declared largest output only where the key’s policy does', async () => {
    // The cap comes first: what the request can get is 8,192, within a policy that allows 10,000.
    const member = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000, maxOutput: 10_000 });
    const anthropic = anthropicClient(gateway, member.key);
    await anthropic.messages.create({
      model: 'anthropic/claude-next',
      max_tokens: 20_000,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(upstream.requests[0]?.json).toMatchObject({ max_tokens: 8_192 });
    const narrow = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000, maxOutput: 1_000 });
    const openai = openaiClient(gateway, narrow.key);
    expect(
      await refusal(
        openai.chat.completions.create({
          model: 'beta/beta-4-31b',
          max_tokens: 4_000,
          messages: [{ role: 'user', content: 'hello' }],
        }),
      ),
    ).toEqual({ status: 403, code: 'output_policy_denied' });
  });
});
