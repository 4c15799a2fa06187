import Anthropic from 'anthropic-sdk-legacy';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/** The 0.x line of the SDK (installed as `anthropic-sdk-legacy`), which sends the key as `x-api-key`. */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'anthropic', wire: 'anthropic-messages', models: ['claude-test'], apiKey: 'provider-secret' },
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;
let key: string;
const sentHeaders: Headers[] = [];

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
  // The SDK is unmodified; the fetch it is given only notes the headers it sends, to show which one it uses.
  const observingFetch: typeof fetch = (input, init) => {
    sentHeaders.push(new Headers(init?.headers));
    return fetch(input, init);
  };
  client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0, fetch: observingFetch });
});

const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'hello there' }];
const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function textOf(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('messages through the gateway with the official @anthropic-ai/sdk 0.x', () => {
  it('authenticates with x-api-key, answers a plain request and records measured usage', async () => {
    const { data, response } = await client.messages
      .create({ model: 'anthropic/claude-test', max_tokens: 100, messages: hello })
      .withResponse();
    expect(textOf(data)).toBe('echo: hello there');
    expect(sentHeaders.at(-1)?.get('x-api-key')).toBe(key);
    expect(sentHeaders.at(-1)?.get('authorization')).toBeNull();
    expect(upstream.requests[0]?.headers['x-api-key']).toBe('provider-secret');

    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      state: 'completed',
      wire: 'anthropic-messages',
      inputTokens: 17,
      cachedInputTokens: 5,
      outputTokens: 9,
      charge: 26,
      source: 'measured',
    });
  });

  it('streams text that the SDK assembles and records the streamed usage', async () => {
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 100, messages: hello });
    expect(await stream.finalText()).toBe('echo: hello there');
    const { response } = await stream.withResponse();
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ stream: true, inputTokens: 17, cachedInputTokens: 5, outputTokens: 9 });
  });

  it('round-trips a tool call', async () => {
    const question: Anthropic.MessageParam = { role: 'user', content: 'weather in Oslo?' };
    const first = await client.messages
      .stream({ model: 'claude-test', max_tokens: 100, messages: [question], tools: [weatherTool] })
      .finalMessage();
    const call = first.content.find((block) => block.type === 'tool_use');
    if (call?.type !== 'tool_use') throw new Error('no tool_use block in the answer');
    expect(call).toMatchObject({ name: 'get_weather', input: { input: 'weather in Oslo?' } });

    const second = await client.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'rain' }] },
      ],
    });
    expect(textOf(second)).toBe('echo: rain');
  });

  it("raises upstream and gateway 4xx as the SDK's errors, each with its status and message", async () => {
    upstream.nextResponse({ type: 'error', status: 403, message: 'this organisation may not use the model' });
    const upstreamError = await client.messages
      .create({ model: 'claude-test', max_tokens: 10, messages: hello })
      .catch((caught: unknown) => caught);
    expect(upstreamError).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(upstreamError).toMatchObject({ status: 403, message: expect.stringContaining('may not use the model') });

    const gatewayError = await client.messages
      .create({ model: 'no-such-model', max_tokens: 10, messages: hello })
      .catch((caught: unknown) => caught);
    expect(gatewayError).toBeInstanceOf(Anthropic.NotFoundError);
    expect(gatewayError).toMatchObject({
      status: 404,
      error: { error: { type: 'not_found_error', code: 'unknown_model' } },
      message: expect.stringContaining('is not known to this gateway'),
    });

    const unknownKey = new Anthropic({ apiKey: 'sk-gw-not-a-key', baseURL: gateway.url, maxRetries: 0 });
    const unauthorized = await unknownKey.messages
      .create({ model: 'claude-test', max_tokens: 10, messages: hello })
      .catch((caught: unknown) => caught);
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, error: { error: { code: 'invalid_key' } } });
  });
});
