import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeBedrock, fakeAwsCredentials, fakeBedrockApiKey, startFakeBedrock } from '../support/fake-bedrock.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

/**
 * Spec §4.3 rule 7 on Bedrock: an adapter endpoint serves only its declared provider. Two Bedrock connections of two
 * providers (one signing as the host in us-west-2, one holding a Bedrock API key in eu-central-1) and an OpenAI-style
 * connection of a third all declare the same model ids: a request for `<provider>/<id>` reaches that provider's
 * endpoint only, with that provider's credential only — on InvokeModel and Converse alike, whatever the client's wire —
 * and a bare id they share is refused as ambiguous (rule 3) rather than sent to any of them.
 */
const nova = 'amazon.nova-lite-v1:0';
const claude = 'anthropic.claude-haiku-4-5-20251001-v1:0';
let west: FakeBedrock;
let europe: FakeBedrock;
let other: FakeUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', fakeAwsCredentials.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', fakeAwsCredentials.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', fakeAwsCredentials.sessionToken);
  [west, europe, other] = await Promise.all([startFakeBedrock(), startFakeBedrock(), startFakeUpstream()]);
  gateway = await startTestGateway();
  const bedrockOf = (provider: string, region: string, baseUrl: string, apiKey: string | null) =>
    gateway.admin.createConnection({ provider, wire: 'bedrock', region, baseUrl, models: [nova, claude], apiKey });
  await bedrockOf('bedrock-west', 'us-west-2', west.url, null);
  await bedrockOf('bedrock-eu', 'eu-central-1', europe.url, fakeBedrockApiKey);
  await gateway.admin.createConnection({
    provider: 'compatible',
    wire: 'openai-chat',
    baseUrl: `${other.url}/v1`,
    models: [nova, claude],
  });
  ({ key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 }));
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([west?.close(), europe?.close(), other?.close()]);
  vi.unstubAllEnvs();
});
beforeEach(() => {
  west.reset();
  europe.reset();
  other.reset();
});

const calls: [string, (model: string) => Record<string, unknown>][] = [
  ['/v1/chat/completions', (model) => ({ model, messages: [{ role: 'user', content: 'hi' }] })],
  ['/v1/responses', (model) => ({ model, input: 'hi' })],
  ['/v1/messages', (model) => ({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })],
];

describe('each Bedrock connection serves only its declared provider (spec §4.3 rule 7)', () => {
  it.each([nova, claude])(
    '%s: bedrock-west/… reaches only us-west-2, signed; bedrock-eu/… only its own endpoint, with its key',
    async (model) => {
      for (const [path, body] of calls) {
        const westAnswer = await postJson(gateway, key, path, body(`bedrock-west/${model}`));
        expect(westAnswer.status, await westAnswer.text()).toBe(200);
        const euAnswer = await postJson(gateway, key, path, body(`bedrock-eu/${model}`));
        expect(euAnswer.status, await euAnswer.text()).toBe(200);
      }
      const operation = model === nova ? 'converse' : 'invoke';
      expect(west.requests.map((request) => [request.modelId, request.operation])).toEqual(
        Array(3).fill([model, operation]),
      );
      expect(europe.requests.map((request) => [request.modelId, request.operation])).toEqual(
        Array(3).fill([model, operation]),
      );
      for (const request of west.requests) {
        expect(request.headers['authorization']).toMatch(
          /^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/us-west-2\/bedrock\//,
        );
        expect(JSON.stringify(request.headers)).not.toContain(fakeBedrockApiKey);
      }
      for (const request of europe.requests) {
        expect(request.headers['authorization']).toBe(`Bearer ${fakeBedrockApiKey}`);
        expect(request.headers['x-amz-date']).toBeUndefined();
      }
      // The OpenAI-style connection declaring the same ids is never chosen for a Bedrock provider's model.
      expect(other.requests).toHaveLength(0);
    },
  );

  it('sends compatible/… to its own connection only, and refuses a bare id the providers share', async () => {
    const answer = await postJson(gateway, key, '/v1/chat/completions', calls[0]![1](`compatible/${nova}`));
    expect(answer.status, await answer.text()).toBe(200);
    expect(other.requests.map((request) => request.path)).toEqual(['/v1/chat/completions']);
    const bare = await postJson(gateway, key, '/v1/chat/completions', calls[0]![1](nova));
    expect(bare.status).toBe(400);
    expect(await bare.json()).toMatchObject({ error: { code: 'ambiguous_model' } });
    expect([...west.requests, ...europe.requests]).toHaveLength(0);
  });
});
