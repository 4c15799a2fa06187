import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import { beforeAll, describe, expect, it } from 'vitest';
import { secretNameForConnection } from '../../shared/config/gateway-services.ts';
import type { ConnectionItem } from '../../shared/store/control-items.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient, googleClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * A base URL is written the way the provider's own SDK takes it: OpenAI-format with its version
 * (`https://api.openai.com/v1`, as OPENAI_BASE_URL), messages-format without `/v1` (`https://api.anthropic.com`,
 * as ANTHROPIC_BASE_URL), generate-content without `/v1beta` (the Google SDK's baseUrl). A URL that ends in the
 * version works too, and so do connections stored under the earlier rule, which were given `…/v1` for messages and
 * `…/v1beta` for Gemini: they are written straight into the store here, as the earlier version left them.
 * Each connection has a path of its own on the fake upstream, so where a request landed tells which one served it.
 */
const fixture = useGatewayFixture({
  connections: [
    // As each SDK documents it.
    { provider: 'anthropic', wire: 'anthropic-messages', path: '/sdk-anthropic', models: ['claude-sdk-form'] },
    { provider: 'google', wire: 'gemini', path: '/sdk-google', models: ['gemini-sdk-form'] },
    { provider: 'openai', wire: 'openai-chat', path: '/sdk-openai/v1', models: ['gpt-sdk-form'] },
    // With the version the SDK would append, and a trailing slash: stored without them.
    {
      provider: 'anthropic',
      wire: 'anthropic-messages',
      path: '/versioned-anthropic/v1/',
      models: ['claude-versioned'],
    },
    { provider: 'google', wire: 'gemini', path: '/versioned-google/v1beta/', models: ['gemini-versioned'] },
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let anthropic: Anthropic;
let google: GoogleGenAI;

/** Connections as the version before this one stored them: the API's own address, version included. */
async function storeEarlierConnection(
  fields: Pick<ConnectionItem, 'provider' | 'wire' | 'baseUrl' | 'models'>,
): Promise<string> {
  const { services } = gateway.host;
  const id = `con_earlier_${fields.models[0]}`;
  const secretName = secretNameForConnection(services.config, id);
  await services.secrets.write(secretName, 'earlier-credential');
  await services.store.connections.create({
    ...fields,
    id,
    modelLimits: [],
    upstream: 'lb',
    privateNetwork: false,
    enabled: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    secretName,
    version: 1,
  });
  return id;
}

beforeAll(async () => {
  ({ upstream, gateway } = fixture);
  const { key } = fixture.member;
  anthropic = anthropicClient(gateway, key);
  google = googleClient(gateway, key);
  await storeEarlierConnection({
    provider: 'anthropic',
    wire: 'anthropic-messages',
    baseUrl: `${upstream.url}/earlier-anthropic/v1`,
    models: ['claude-earlier'],
  });
  await storeEarlierConnection({
    provider: 'google',
    wire: 'gemini',
    baseUrl: `${upstream.url}/earlier-google/v1beta`,
    models: ['gemini-earlier'],
  });
});

const messagesCases = [
  ['as ANTHROPIC_BASE_URL', 'claude-sdk-form', '/sdk-anthropic'],
  ['given with /v1/', 'claude-versioned', '/versioned-anthropic'],
  ['stored with /v1 by the earlier version', 'claude-earlier', '/earlier-anthropic'],
] as const;

const generateContentCases = [
  ["as the Google SDK's baseUrl", 'gemini-sdk-form', '/sdk-google'],
  ['given with /v1beta/', 'gemini-versioned', '/versioned-google'],
  ['stored with /v1beta by the earlier version', 'gemini-earlier', '/earlier-google'],
] as const;

describe('connection base URLs as each provider’s SDK takes them', () => {
  it.each(messagesCases)(
    'messages-format %s: messages and count_tokens under {base}/v1',
    async (_label, model, root) => {
      const answer = await anthropic.messages.create({
        model: `anthropic/${model}`,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: hello' })]);
      const counted = await anthropic.messages.countTokens({
        model: `anthropic/${model}`,
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(counted.input_tokens).toBeGreaterThan(0);
      expect(upstream.requests.map((request) => request.path)).toEqual([
        `${root}/v1/messages`,
        `${root}/v1/messages/count_tokens`,
      ]);
    },
  );

  it.each(generateContentCases)(
    'generate-content %s: generateContent and countTokens under {base}/v1beta',
    async (_label, model, root) => {
      const answer = await google.models.generateContent({ model: `google/${model}`, contents: 'hello' });
      expect(answer.text).toBe('echo: hello');
      await google.models.countTokens({ model: `google/${model}`, contents: 'hello' });
      expect(upstream.requests.map((request) => request.path)).toEqual([
        `${root}/v1beta/models/${model}:generateContent`,
        `${root}/v1beta/models/${model}:countTokens`,
      ]);
    },
  );

  it('OpenAI-format: the base URL carries the version, and the paths go right under it', async () => {
    const openai = openaiClient(gateway, fixture.member.key);
    await openai.chat.completions.create({
      model: 'openai/gpt-sdk-form',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(upstream.requests[0]?.path).toBe('/sdk-openai/v1/chat/completions');
  });

  it('stores a new base URL in the SDK’s form, and leaves the earlier ones as they were', async () => {
    const { connections } = await gateway.admin.call<{ connections: { models: string[]; baseUrl: string }[] }>(
      'GET',
      '/connections',
    );
    const baseUrlOf = (model: string) => connections.find((connection) => connection.models[0] === model)?.baseUrl;
    expect(baseUrlOf('claude-sdk-form')).toBe(`${upstream.url}/sdk-anthropic`);
    expect(baseUrlOf('claude-versioned')).toBe(`${upstream.url}/versioned-anthropic`);
    expect(baseUrlOf('gemini-versioned')).toBe(`${upstream.url}/versioned-google`);
    expect(baseUrlOf('gpt-sdk-form')).toBe(`${upstream.url}/sdk-openai/v1`);
    expect(baseUrlOf('claude-earlier')).toBe(`${upstream.url}/earlier-anthropic/v1`);
    expect(baseUrlOf('gemini-earlier')).toBe(`${upstream.url}/earlier-google/v1beta`);
  });
});
