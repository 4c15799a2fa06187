import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/** The 1.x line of the SDK, which sends the key as `Authorization: Bearer`. */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'anthropic', wire: 'anthropic-messages', models: ['claude-test'], apiKey: 'provider-secret' },
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;
let memberId: string;
let key: string;
const sentHeaders: Headers[] = [];

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ memberId, key } = fixture.member);
  // The SDK is unmodified; the fetch it is given only notes the headers it sends, to show which one it uses.
  const observingFetch: typeof fetch = (input, init) => {
    sentHeaders.push(new Headers(init?.headers));
    return fetch(input, init);
  };
  client = anthropicClient(gateway, key, { fetch: observingFetch });
});

const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'hello there' }];
const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function textOf(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('messages through the gateway with the official @anthropic-ai/sdk 1.x', () => {
  it('answers a plain request as a pass-through with the provider credential, and records measured usage', async () => {
    const { data, response } = await client.messages
      .create({ model: 'anthropic/claude-test', max_tokens: 200, messages: hello, metadata: { user_id: 'u-1' } })
      .withResponse();
    expect(textOf(data)).toBe('echo: hello there');
    expect(sentHeaders.at(-1)?.get('authorization')).toBe(`Bearer ${key}`);
    expect(sentHeaders.at(-1)?.get('x-api-key')).toBeNull();

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('provider-secret');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(key);
    expect(sent.json).toMatchObject({ model: 'claude-test', max_tokens: 200, metadata: { user_id: 'u-1' } });

    // The vendor reports cache reads apart from input_tokens; the record holds them inside input.
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      state: 'completed',
      status: 200,
      provider: 'anthropic',
      model: 'anthropic/claude-test',
      wire: 'anthropic-messages',
      memberId,
      inputTokens: 17,
      cachedInputTokens: 5,
      outputTokens: 9,
      charge: 26,
      source: 'measured',
    });
    expect(JSON.stringify(record)).not.toContain('hello there');
  });

  it('streams text that the SDK assembles, with usage combined from message_start and message_delta', async () => {
    upstream.nextResponse({ type: 'answer', usage: { inputTokens: 50, cachedInputTokens: 30, outputTokens: 4 } });
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 200, messages: hello });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const final = await stream.finalMessage();
    expect(textOf(final)).toBe('echo: hello there');
    expect(deltas.length).toBeGreaterThan(1);
    expect(upstream.requests[0]?.json).toMatchObject({ stream: true, model: 'claude-test' });

    const { response } = await stream.withResponse();
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      state: 'completed',
      stream: true,
      inputTokens: 50,
      cachedInputTokens: 30,
      outputTokens: 4,
      charge: 54,
      source: 'measured',
    });
  });

  it('round-trips a tool call, plain and streamed', async () => {
    const question: Anthropic.MessageParam = { role: 'user', content: 'weather in Oslo?' };
    const first = await client.messages.create({
      model: 'claude-test',
      max_tokens: 200,
      messages: [question],
      tools: [weatherTool],
      tool_choice: { type: 'auto' },
    });
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((block) => block.type === 'tool_use');
    if (call?.type !== 'tool_use') throw new Error('no tool_use block in the answer');
    expect(call).toMatchObject({ name: 'get_weather', input: { input: 'weather in Oslo?' } });
    expect(upstream.requests[0]?.json).toMatchObject({ tools: [weatherTool], tool_choice: { type: 'auto' } });

    const second = await client.messages.create({
      model: 'claude-test',
      max_tokens: 200,
      tools: [weatherTool],
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny, 21°C' }] },
      ],
    });
    expect(textOf(second)).toBe('echo: sunny, 21°C');

    const streamed = await client.messages
      .stream({ model: 'claude-test', max_tokens: 200, messages: [question], tools: [weatherTool] })
      .finalMessage();
    expect(streamed.content.find((block) => block.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: { input: 'weather in Oslo?' },
    });
  });

  it("raises an upstream 4xx as the SDK's error with the upstream's status and message", async () => {
    upstream.nextResponse({ type: 'error', status: 400, message: 'prompt is too long' });
    const error = await client.messages
      .create({ model: 'claude-test', max_tokens: 10, messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining('prompt is too long') });

    upstream.nextResponse({ type: 'error', status: 429, message: 'rate limited upstream' });
    const streamed = await client.messages
      .create({ model: 'claude-test', max_tokens: 10, messages: hello, stream: true })
      .catch((caught: unknown) => caught);
    expect(streamed).toBeInstanceOf(Anthropic.RateLimitError);
    expect(streamed).toMatchObject({ status: 429 });
  });

  it("raises the gateway's own 4xx as the SDK's error with the gateway's message and code", async () => {
    const unknown = await client.messages
      .create({ model: 'no-such-model', max_tokens: 10, messages: hello })
      .catch((caught: unknown) => caught);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect(unknown).toMatchObject({
      status: 404,
      error: { type: 'error', error: { type: 'not_found_error', code: 'unknown_model' } },
      message: expect.stringContaining('is not known to this gateway'),
    });

    const invalid = await client.messages
      .create({ model: 'claude-test', max_tokens: 10, messages: [] })
      .catch((caught: unknown) => caught);
    expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
    expect(invalid).toMatchObject({ error: { error: { code: 'invalid_request' } } });

    const badKey = new Anthropic({ apiKey: 'sk-gw-not-a-key', baseURL: gateway.url, maxRetries: 0 });
    const unauthorized = await badKey.messages
      .create({ model: 'claude-test', max_tokens: 10, messages: hello })
      .catch((caught: unknown) => caught);
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, error: { error: { code: 'invalid_key' } } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('ends a stream that the upstream cuts off with an error event and a conservative charge', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 3 });
    const { data: stream, response } = await client.messages
      .create({ model: 'claude-test', max_tokens: 10, messages: hello, stream: true })
      .withResponse();
    await expect(async () => {
      for await (const _event of stream) {
        // drain
      }
    }).rejects.toThrow(/upstream_interrupted|interrupted/);
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ source: 'conservative', state: 'failed' });
  });

  it('is reachable under an upstream path prefix', async () => {
    const viaPrefix = new Anthropic({ apiKey: key, baseURL: `${gateway.url}/lb`, maxRetries: 0 });
    const message = await viaPrefix.messages.create({ model: 'claude-test', max_tokens: 10, messages: hello });
    expect(textOf(message)).toBe('echo: hello there');
  });
});
