import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { APICallError, generateText, streamText } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

const fixture = useGatewayFixture({
  connections: [
    { provider: 'google', wire: 'gemini', path: '/v1beta', models: ['gemini-test'], apiKey: 'provider-secret' },
    { provider: 'google', wire: 'gemini', path: '/second/v1beta', models: ['gemini-test'], upstream: 'lb2' },
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

/** The paths the SDK called the gateway at, to show the form it uses. */
const calledPaths: string[] = [];

/** `@ai-sdk/google` sends an id that holds a slash as the path itself: `/v1beta/<provider>/<model>:…`. */
function google(baseURL = `${gateway.url}/v1beta`) {
  return createGoogleGenerativeAI({
    apiKey: fixture.member.key,
    baseURL,
    fetch: (input, init) => {
      calledPaths.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
      return fetch(input, init);
    },
  });
}

describe('@ai-sdk/google with provider/model ids through the gateway', () => {
  it('generates text, with the usage the provider reported', async () => {
    const result = await generateText({ model: google()('google/gemini-test'), prompt: 'hello there' });
    expect(result.text).toBe('echo: hello there');
    expect(calledPaths.at(-1)).toBe('/v1beta/google/gemini-test:generateContent');
    expect(result.usage).toMatchObject({ inputTokens: 17, outputTokens: 9 });
    expect(upstream.requests[0]?.path).toBe('/v1beta/models/gemini-test:generateContent');
    expect(upstream.requests[0]?.headers['x-goog-api-key']).toBe('provider-secret');
  });

  it('streams text', async () => {
    const result = streamText({ model: google()('google/gemini-test'), prompt: 'stream it' });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('echo: stream it');
    expect(calledPaths.at(-1)).toBe('/v1beta/google/gemini-test:streamGenerateContent');
    expect(await result.finishReason).toBe('stop');
    expect(upstream.requests[0]?.path).toBe('/v1beta/models/gemini-test:streamGenerateContent');
  });

  it('reaches another upstream by an id that starts with its prefix, or by a base URL under it', async () => {
    const byId = await generateText({ model: google()('lb2/google/gemini-test'), prompt: 'one' });
    expect(byId.text).toBe('echo: one');
    expect(calledPaths.at(-1)).toBe('/v1beta/lb2/google/gemini-test:generateContent');
    const byPath = await generateText({
      model: google(`${gateway.url}/lb2/v1beta`)('google/gemini-test'),
      prompt: 'two',
    });
    expect(byPath.text).toBe('echo: two');
    expect(upstream.requests.map((request) => request.path)).toEqual([
      '/second/v1beta/models/gemini-test:generateContent',
      '/second/v1beta/models/gemini-test:generateContent',
    ]);
  });

  it("raises the gateway's refusal as an APICallError with its status and message", async () => {
    const failure = await generateText({ model: google()('google/no-such-model'), prompt: 'x', maxRetries: 0 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(APICallError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      statusCode: 404,
      message: 'The model "google/no-such-model" is not known to this gateway.',
    });
    expect(upstream.requests).toHaveLength(0);
  });
});
