import { type Content, type GenerateContentResponse, GoogleGenAI, type Tool } from '@google/genai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { googleApiErrorOf } from '../support/google-refusal.ts';
import { googleClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

const fixture = useGatewayFixture({
  connections: [
    { provider: 'google', wire: 'gemini', path: '/v1beta', models: ['gemini-test'], apiKey: 'provider-secret' },
  ],
  member: { dailyTokens: 1_000_000 },
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

const weatherTools: Tool[] = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
  },
];

function requestIdOf(response: GenerateContentResponse): string {
  const requestId = response.sdkHttpResponse?.headers?.['x-request-id'];
  if (!requestId) throw new Error('the answer carries no x-request-id');
  return requestId;
}

/** The gateway by plain HTTP, for what the SDK never sends. */
function post(path: string, body: unknown = { contents: [{ parts: [{ text: 'hi' }] }] }) {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('generate-content through the gateway with the official @google/genai SDK', () => {
  it('answers a plain request as a pass-through with the provider credential, and records measured usage', async () => {
    const response = await ai.models.generateContent({
      model,
      contents: 'hello there',
      config: { temperature: 0.25, maxOutputTokens: 300 },
    });
    expect(response.text).toBe('echo: hello there');

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-test:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('provider-secret');
    expect(JSON.stringify(sent.headers)).not.toContain(key);
    expect(sent.query).toEqual({});
    expect(sent.json).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'hello there' }] }],
      generationConfig: { temperature: 0.25, maxOutputTokens: 300 },
    });

    // cachedContentTokenCount is a part of promptTokenCount, as the record holds it.
    const record = await settledRecord(gateway.host.services, requestIdOf(response));
    expect(record).toMatchObject({
      state: 'completed',
      status: 200,
      provider: 'google',
      model: 'google/gemini-test',
      wire: 'gemini',
      stream: false,
      inputTokens: 17,
      cachedInputTokens: 5,
      outputTokens: 9,
      charge: 26,
      source: 'measured',
    });
  });

  it('takes the model segment with its slash raw or URL-encoded, and under an upstream path prefix', async () => {
    const encoded = await ai.models.generateContent({ model: encodeURIComponent(model), contents: 'one' });
    expect(encoded.text).toBe('echo: one');
    const viaPrefix = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${gateway.url}/lb` } });
    expect((await viaPrefix.models.generateContent({ model, contents: 'two' })).text).toBe('echo: two');
    expect(upstream.requests.map((request) => request.path)).toEqual([
      '/v1beta/models/gemini-test:generateContent',
      '/v1beta/models/gemini-test:generateContent',
    ]);
  });

  it('streams text that the SDK assembles, with the last cumulative usage recorded', async () => {
    upstream.nextResponse({ type: 'answer', usage: { inputTokens: 30, cachedInputTokens: 0, outputTokens: 12 } });
    const stream = await ai.models.generateContentStream({ model, contents: 'stream this please' });
    let text = '';
    let last: GenerateContentResponse | undefined;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expect(text).toBe('echo: stream this please');
    expect(upstream.requests[0]?.path).toBe('/v1beta/models/gemini-test:streamGenerateContent');
    expect(upstream.requests[0]?.query).toEqual({ alt: 'sse' });

    if (!last) throw new Error('the stream was empty');
    const record = await settledRecord(gateway.host.services, requestIdOf(last));
    expect(record).toMatchObject({
      state: 'completed',
      stream: true,
      inputTokens: 30,
      cachedInputTokens: null,
      outputTokens: 12,
      charge: 42,
      source: 'measured',
    });
  });

  it('round-trips a function call, plain and streamed', async () => {
    const question: Content = { role: 'user', parts: [{ text: 'weather in Oslo?' }] };
    const first = await ai.models.generateContent({ model, contents: [question], config: { tools: weatherTools } });
    const call = first.functionCalls?.[0];
    expect(call).toMatchObject({ name: 'get_weather', args: { input: 'weather in Oslo?' } });
    expect(upstream.requests[0]?.json).toMatchObject({ tools: weatherTools });

    const second = await ai.models.generateContent({
      model,
      contents: [
        question,
        { role: 'model', parts: [{ functionCall: call }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { forecast: 'sunny' } } }] },
      ],
      config: { tools: weatherTools },
    });
    expect(second.functionCalls).toBeUndefined();
    expect(second.text).toContain('sunny');

    const stream = await ai.models.generateContentStream({
      model,
      contents: [question],
      config: { tools: weatherTools },
    });
    const streamedCalls = [];
    for await (const chunk of stream) streamedCalls.push(...(chunk.functionCalls ?? []));
    expect(streamedCalls).toMatchObject([{ name: 'get_weather', args: { input: 'weather in Oslo?' } }]);
  });

  it("raises an upstream 4xx as the SDK's ApiError with the upstream's status and message", async () => {
    upstream.nextResponse({ type: 'error', status: 400, message: 'Request contains an invalid argument.' });
    const plain = await googleApiErrorOf(ai.models.generateContent({ model, contents: 'x' }));
    expect(plain.status).toBe(400);
    expect(plain.message).toContain('Request contains an invalid argument.');

    upstream.nextResponse({ type: 'error', status: 429, message: 'Resource has been exhausted' });
    const streamed = await googleApiErrorOf(ai.models.generateContentStream({ model, contents: 'x' }));
    expect(streamed.status).toBe(429);
    expect(streamed.message).toContain('RESOURCE_EXHAUSTED');
  });

  it("raises the gateway's own 4xx as the SDK's ApiError with the gateway's message and code", async () => {
    const unknown = await googleApiErrorOf(ai.models.generateContent({ model: 'google/no-such-model', contents: 'x' }));
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.message)).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        reason: 'unknown_model',
        message: 'The model "google/no-such-model" is not known to this gateway.',
      },
    });

    const badKey = new GoogleGenAI({ apiKey: 'sk-gw-not-a-key', httpOptions: { baseUrl: gateway.url } });
    const unauthorized = await googleApiErrorOf(badKey.models.generateContent({ model, contents: 'x' }));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.message).toContain('invalid_key');
    expect(upstream.requests).toHaveLength(0);
  });

  it('ends a stream that the upstream cuts off with an error chunk the SDK raises, and a conservative charge', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 1, textChunks: ['a ', 'b ', 'c'] });
    const stream = await ai.models.generateContentStream({ model, contents: 'x' });
    const chunks: GenerateContentResponse[] = [];
    const error = await googleApiErrorOf(
      (async () => {
        for await (const chunk of stream) chunks.push(chunk);
      })(),
    );
    expect(error.status).toBe(502);
    expect(error.message).toContain('upstream_interrupted');
    const record = await settledRecord(gateway.host.services, requestIdOf(chunks[0]!));
    expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
  });

  it('refuses a key in the query, an unknown method and an unknown alt, in its own envelope', async () => {
    const withQueryKey = await post(`/v1beta/models/${model}:generateContent?key=${key}`);
    expect(withQueryKey.status).toBe(400);
    expect(await withQueryKey.json()).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', reason: 'query_credentials_refused' },
    });

    const embed = await post(`/v1beta/models/${model}:embedContent`);
    expect(embed.status).toBe(404);
    expect(await embed.json()).toMatchObject({ error: { status: 'NOT_FOUND', reason: 'unknown_route' } });

    const proto = await post(`/v1beta/models/${model}:streamGenerateContent?alt=proto`);
    expect(proto.status).toBe(400);
    expect(await proto.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT', reason: 'invalid_query' } });
    expect(upstream.requests).toHaveLength(0);
  });
});
