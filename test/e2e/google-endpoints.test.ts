import { GoogleGenAI, type Model } from '@google/genai';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenCountSourceHeader } from '../../shared/http/token-count-source.ts';
import { estimateRequestTokenCount } from '../../shared/tokens/estimate-token-count.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { googleApiErrorOf } from '../support/google-refusal.ts';
import { googleClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/** A generate-content connection (it counts tokens itself) and a chat one (the gateway estimates for it). */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'google', wire: 'gemini', path: '/v1beta', models: ['gemini-test'], apiKey: 'provider-secret' },
    { provider: 'openai', wire: 'openai-chat', models: ['gpt-test'] },
    { provider: 'beta', wire: 'openai-chat', upstream: 'beta' },
  ],
  member: { dailyTokens: 1_000_000, rpm: 1_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let ai: GoogleGenAI;
let key: string;
const model = 'google/gemini-test';

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
  ai = googleClient(gateway, key);
});

function call(path: string, init: { method?: string; body?: unknown; apiKey?: string | null } = {}) {
  const apiKey = init.apiKey === undefined ? key : init.apiKey;
  return fetch(`${gateway.url}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey === null ? {} : { 'x-goog-api-key': apiKey }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

const hello = { contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] };

describe(':countTokens with the official @google/genai SDK', () => {
  it("answers with a generate-content connection's own count, says so, and is no inference", async () => {
    const recordsBefore = (await allRecords(gateway.host.services)).length;
    const count = await ai.models.countTokens({ model, contents: 'hello there' });
    expect(count.totalTokens).toBe(17);
    expect(count.sdkHttpResponse?.headers?.[tokenCountSourceHeader]).toBe('upstream');

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-test:countTokens');
    expect(sent.headers['x-goog-api-key']).toBe('provider-secret');
    expect(sent.json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] });
    // Nothing reserved, admitted or recorded.
    expect((await allRecords(gateway.host.services)).length).toBe(recordsBefore);
    const account = await memberAfterSettlement(gateway.host.services, fixture.member.memberId);
    expect(account.leases).toEqual({});
  });

  it("estimates for a model whose connection has no count endpoint, in Google's shape", async () => {
    const contents = [
      { role: 'user', parts: [{ text: 'Summarise the three laws of thermodynamics in plain words.' }] },
      { role: 'model', parts: [{ text: 'Energy is kept, entropy grows, and absolute zero is out of reach.' }] },
      { role: 'user', parts: [{ text: 'And the zeroth?' }] },
    ];
    const count = await ai.models.countTokens({ model: 'openai/gpt-test', contents });
    expect(count.sdkHttpResponse?.headers?.[tokenCountSourceHeader]).toBe('estimate');
    expect(count.totalTokens).toBe(estimateRequestTokenCount({ contents }));
    expect(count.totalTokens).toBeGreaterThan(20);
    expect(count.totalTokens).toBeLessThan(60);
    expect(upstream.requests).toHaveLength(0);
  });

  it('counts a whole generateContentRequest, under the provider/model path form and an upstream prefix', async () => {
    const body = { generateContentRequest: { model: 'models/google/gemini-test', ...hello } };
    const native = await call('/v1beta/google/gemini-test:countTokens', { body });
    expect(native.status).toBe(200);
    expect(await native.json()).toMatchObject({ totalTokens: 17 });
    // The nested model is the upstream's, as the path is.
    expect(upstream.requests[0]?.json).toMatchObject({ generateContentRequest: { model: 'models/gemini-test' } });

    const prefixed = await call('/beta/v1beta/models/beta-beta-4-31b:countTokens', { body: hello });
    expect(prefixed.status).toBe(200);
    expect(prefixed.headers.get(tokenCountSourceHeader)).toBe('estimate');
    expect(await prefixed.json()).toEqual({ totalTokens: estimateRequestTokenCount(hello) });
  });

  it('refuses in the generate-content envelope: unknown model, bad key, denied model, bad body', async () => {
    const unknown = await googleApiErrorOf(ai.models.countTokens({ model: 'google/nope', contents: 'x' }));
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.message)).toMatchObject({ error: { status: 'NOT_FOUND', reason: 'unknown_model' } });

    const badKey = new GoogleGenAI({ apiKey: 'sk-gw-unknown', httpOptions: { baseUrl: gateway.url } });
    const unauthorized = await googleApiErrorOf(badKey.models.countTokens({ model, contents: 'x' }));
    expect(unauthorized.status).toBe(401);
    expect(JSON.parse(unauthorized.message)).toMatchObject({ error: { reason: 'invalid_key' } });

    const { key: narrow } = await gateway.admin.createMemberWithKey({ providers: ['openai'] });
    const denied = await call(`/v1beta/models/${model}:countTokens`, { body: hello, apiKey: narrow });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: { status: 'PERMISSION_DENIED', reason: 'provider_denied' } });

    const both = await call(`/v1beta/models/${model}:countTokens`, {
      body: { ...hello, generateContentRequest: hello },
    });
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT', reason: 'invalid_request' } });
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('GET /v1beta/models and /v1beta/models/{model} with the official @google/genai SDK', () => {
  it('lists the callable models in the generate-content shape, page by page', async () => {
    const names: string[] = [];
    const models: Model[] = [];
    const pager = await ai.models.list({ config: { pageSize: 2 } });
    expect(pager.page).toHaveLength(2);
    for await (const listed of pager) {
      names.push(listed.name ?? '');
      models.push(listed);
    }
    expect(names).toEqual(['models/beta/beta-4-31b', 'models/google/gemini-test', 'models/openai/gpt-test']);
    expect(models[0]).toMatchObject({
      displayName: 'Beta 4 31B',
      inputTokenLimit: 131_000,
      outputTokenLimit: 32_768,
      supportedActions: ['countTokens'],
    });
    expect(models[1]).toMatchObject({
      displayName: 'gemini-test',
      supportedActions: ['generateContent', 'countTokens'],
    });
    expect(models[1]?.inputTokenLimit).toBeUndefined();
  });

  it('reads one model by id or by the name the list gave, and answers 404 in its own envelope', async () => {
    expect(await ai.models.get({ model })).toMatchObject({ name: 'models/google/gemini-test' });
    expect(await ai.models.get({ model: 'models/beta/beta-4-31b' })).toMatchObject({ displayName: 'Beta 4 31B' });
    const missing = await googleApiErrorOf(ai.models.get({ model: 'gamma/gamma' }));
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.message)).toMatchObject({
      error: { code: 404, status: 'NOT_FOUND', reason: 'model_unavailable' },
    });
  });

  it('refuses a page token it did not give', async () => {
    const refused = await call('/v1beta/models?pageToken=%24%24', { method: 'GET' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT', reason: 'invalid_query' } });
  });
});

describe('every /v1beta error in the generate-content envelope', () => {
  it.each([
    ['GET', '/v1beta/files', 404, 'unknown_route'],
    ['GET', `/v1beta/models/${model}:generateContent`, 405, 'method_not_allowed'],
    ['DELETE', '/v1beta/models', 405, 'method_not_allowed'],
    ['POST', `/v1beta/models/${model}:batchEmbedContents`, 404, 'unknown_route'],
    ['POST', `/lb/v1beta/models/${model}:embedContent`, 404, 'unknown_route'],
  ] as const)('%s %s: %i %s', async (method, path, status, reason) => {
    const response = await call(path, { method, ...(method === 'POST' ? { body: hello } : {}) });
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error: { code: status, reason } });
  });

  it('answers a missing key on a list with 401 in the same envelope', async () => {
    const response = await call('/v1beta/models', { method: 'GET', apiKey: null });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED', reason: 'missing_key' } });
  });
});

describe(':streamGenerateContent without alt=sse: one JSON array, as the vendor streams it', () => {
  async function arrayStream(path: string) {
    const response = await call(path, { body: hello });
    const text = await response.text();
    return { response, text, elements: JSON.parse(text) as Record<string, unknown>[] };
  }

  it('streams the chunks as array elements, every field kept, and records measured usage', async () => {
    upstream.nextResponse({ type: 'answer', textChunks: ['one ', 'two ', 'three'] });
    const { response, text, elements } = await arrayStream(`/v1beta/models/${model}:streamGenerateContent`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(text.startsWith('[{')).toBe(true);
    expect(text.split(',\r\n{')).toHaveLength(3);
    expect(text.endsWith('}]')).toBe(true);
    const parts = elements.map((element) => JSON.stringify(element));
    expect(parts.join('')).toContain('"modelVersion"');
    expect(
      elements.map(
        (element) =>
          (element as { candidates: { content: { parts: { text: string }[] } }[] }).candidates[0]?.content.parts[0]
            ?.text,
      ),
    ).toEqual(['one ', 'two ', 'three']);
    // The gateway reads the upstream as server-sent events whatever the client asked for.
    expect(upstream.requests[0]?.query).toEqual({ alt: 'sse' });

    const requestId = response.headers.get('x-request-id') ?? '';
    expect(await settledRecord(gateway.host.services, requestId)).toMatchObject({
      state: 'completed',
      stream: true,
      inputTokens: 17,
      outputTokens: 9,
      source: 'measured',
    });
  });

  it('takes alt=json and the provider/model path form alike', async () => {
    const { response, elements } = await arrayStream('/v1beta/google/gemini-test:streamGenerateContent?alt=json');
    expect(response.status).toBe(200);
    expect(elements.length).toBeGreaterThan(0);
  });

  it("closes the array with the upstream's mid-stream error as its last element", async () => {
    upstream.nextResponse({
      type: 'answer',
      textChunks: ['a ', 'b ', 'c'],
      streamError: { afterChunks: 1, status: 500, message: 'backend fell over' },
    });
    const { response, elements } = await arrayStream(`/v1beta/models/${model}:streamGenerateContent`);
    expect(elements).toHaveLength(2);
    expect(elements[1]).toEqual({ error: { code: 500, message: 'backend fell over', status: 'INTERNAL' } });
    expect(await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '')).toMatchObject({
      state: 'failed',
      source: 'conservative',
    });
  });

  it("closes the array with the gateway's own error when the upstream breaks off", async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 1, textChunks: ['a ', 'b ', 'c'] });
    const { elements } = await arrayStream(`/v1beta/models/${model}:streamGenerateContent`);
    expect(elements.at(-1)).toMatchObject({ error: { code: 502, reason: 'upstream_interrupted' } });
  });

  it('answers errors before the stream as a one-element array, the gateway’s and the upstream’s', async () => {
    const unknown = await call('/v1beta/models/google/nope:streamGenerateContent', { body: hello });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual([
      {
        error: {
          code: 404,
          message: 'The model "google/nope" is not known to this gateway.',
          status: 'NOT_FOUND',
          reason: 'unknown_model',
        },
      },
    ]);

    upstream.nextResponse({ type: 'error', status: 429, message: 'Resource has been exhausted' });
    const limited = await call(`/v1beta/models/${model}:streamGenerateContent`, { body: hello });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual([
      { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } },
    ]);
  });
});
