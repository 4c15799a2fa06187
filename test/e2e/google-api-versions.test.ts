import { type GenerateContentResponse, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tokenCountSourceHeader } from '../../shared/http/token-count-source.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * `@google/genai` calls Google's beta API (`/v1beta/…`) unless told `apiVersion: 'v1'`, the stable one
 * (`/v1/models/<model>:generateContent`), whose paths share `/v1/models/` with OpenAI's model reads.
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'google', wire: 'gemini', path: '/v1beta', models: ['gemini-test'], apiKey: 'provider-secret' },
    { provider: 'openai', wire: 'openai-chat', models: ['gpt-4o'] },
  ],
  member: { dailyTokens: 1_000_000, rpm: 1_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let key: string;
const model = 'google/gemini-test';

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The paths the SDK asked the gateway for, watched on the real fetch it calls (nothing is changed on the way). */
function watchGatewayPaths(): string[] {
  const paths: string[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === gateway.url) paths.push(`${url.pathname}${url.search}`);
    return realFetch(input, init);
  });
  return paths;
}

function requestIdOf(response: GenerateContentResponse): string {
  const requestId = response.sdkHttpResponse?.headers?.['x-request-id'];
  if (!requestId) throw new Error('the answer carries no x-request-id');
  return requestId;
}

describe.each(['v1', 'v1beta'] as const)("@google/genai with apiVersion '%s'", (apiVersion) => {
  const client = () => new GoogleGenAI({ apiKey: key, apiVersion, httpOptions: { baseUrl: gateway.url } });

  it('generates content, as a pass-through to the connection, and records it', async () => {
    const paths = watchGatewayPaths();
    const response = await client().models.generateContent({ model, contents: 'hello there' });
    expect(response.text).toBe('echo: hello there');
    expect(paths).toEqual([`/${apiVersion}/models/google/gemini-test:generateContent`]);
    // The connection is called on its own API version, whichever the client used.
    expect(upstream.requests[0]?.path).toBe('/v1beta/models/gemini-test:generateContent');
    expect(upstream.requests[0]?.headers['x-goog-api-key']).toBe('provider-secret');
    expect(await settledRecord(gateway.host.services, requestIdOf(response))).toMatchObject({
      state: 'completed',
      status: 200,
      model,
      stream: false,
      source: 'measured',
    });
  });

  it('streams content as server-sent events, and records the stream', async () => {
    const paths = watchGatewayPaths();
    const stream = await client().models.generateContentStream({ model, contents: 'stream this please' });
    let text = '';
    let last: GenerateContentResponse | undefined;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expect(text).toBe('echo: stream this please');
    expect(paths).toEqual([`/${apiVersion}/models/google/gemini-test:streamGenerateContent?alt=sse`]);
    expect(upstream.requests[0]?.path).toBe('/v1beta/models/gemini-test:streamGenerateContent');
    if (!last) throw new Error('the stream was empty');
    expect(await settledRecord(gateway.host.services, requestIdOf(last))).toMatchObject({
      state: 'completed',
      stream: true,
      source: 'measured',
    });
  });

  it("counts tokens with the connection's own count", async () => {
    const paths = watchGatewayPaths();
    const count = await client().models.countTokens({ model, contents: 'hello there' });
    expect(count.totalTokens).toBe(17);
    expect(count.sdkHttpResponse?.headers?.[tokenCountSourceHeader]).toBe('upstream');
    expect(paths).toEqual([`/${apiVersion}/models/google/gemini-test:countTokens`]);
    expect(upstream.requests[0]?.path).toBe('/v1beta/models/gemini-test:countTokens');
  });
});

describe("Google's stable paths beside OpenAI's model reads under /v1/models", () => {
  const openai = () => new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });

  it("leaves the openai SDK's models.list and models.retrieve as they were", async () => {
    const listed = await openai().models.list();
    expect(listed.data.map((entry) => entry.id).toSorted()).toEqual(['google/gemini-test', 'openai/gpt-4o']);
    expect(await openai().models.retrieve('gpt-4o')).toMatchObject({ id: 'openai/gpt-4o', object: 'model' });
    expect(await openai().models.retrieve('openai/gpt-4o')).toMatchObject({ id: 'openai/gpt-4o' });
    expect(await openai().models.retrieve(model)).toMatchObject({ id: model, wires: ['gemini'] });
    // An id that holds a colon is still a model read, not a Google method.
    const colon = await fetch(`${gateway.baseURL}/models/openai/gpt-4o:latest`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(colon.status).toBe(404);
    expect(await colon.json()).toMatchObject({ error: { code: 'unknown_model' } });
    expect(upstream.requests).toHaveLength(0);
  });

  it("answers another HTTP method on a method's path with 405, and an unserved method with 404, in Google's envelope", async () => {
    const read = await fetch(`${gateway.url}/v1/models/google/gemini-test:generateContent`, {
      headers: { 'x-goog-api-key': key },
    });
    expect(read.status).toBe(405);
    expect(read.headers.get('allow')).toBe('POST');
    expect(await read.json()).toMatchObject({ error: { code: 405, reason: 'method_not_allowed' } });

    const embed = await fetch(`${gateway.url}/v1/models/google/gemini-test:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(embed.status).toBe(404);
    const refusal = (await embed.json()) as { error: { reason: string; message: string } };
    expect(refusal.error.reason).toBe('unknown_route');
    expect(refusal.error.message).toContain('/v1/models/<provider/model>:generateContent');
    expect(upstream.requests).toHaveLength(0);
  });

  it('serves the stable paths under an upstream prefix too', async () => {
    const response = await fetch(`${gateway.url}/lb/v1/models/google%2Fgemini-test:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ candidates: [{ content: { parts: [{ text: 'echo: hi' }] } }] });
  });
});
