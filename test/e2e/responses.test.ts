import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import { createStreamGate, type FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

const fixture = useGatewayFixture({
  connections: [
    { provider: 'openai', wire: 'openai-responses', models: ['gpt-test'], apiKey: 'provider-secret' },
    { provider: 'openai', wire: 'openai-chat', models: ['chat-only'] },
    // No translation reaches generate-content from Responses.
    { provider: 'google', wire: 'gemini', models: ['gemini-only'], path: '/gemini-route/v1beta' },
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let memberId: string;
let key: string;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ memberId, key } = fixture.member);
  client = openaiClient(gateway, key);
});

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

describe('responses through the gateway with the official openai SDK', () => {
  it('answers a plain request as a pass-through and records measured usage', async () => {
    const { data, response } = await client.responses
      .create({ model: 'openai/gpt-test', input: 'hello there', instructions: 'be brief', metadata: { trace: 't1' } })
      .withResponse();
    expect(data.output_text).toBe('echo: hello there');

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe('Bearer provider-secret');
    expect(JSON.stringify(sent.headers)).not.toContain(key);
    // Only the model is rewritten; fields the gateway does not read reach the provider untouched.
    expect(sent.json).toMatchObject({ model: 'gpt-test', instructions: 'be brief', metadata: { trace: 't1' } });

    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      state: 'completed',
      status: 200,
      provider: 'openai',
      model: 'openai/gpt-test',
      wire: 'openai-responses',
      stream: false,
      memberId,
      inputTokens: 17,
      cachedInputTokens: 5,
      outputTokens: 9,
      charge: 26,
      source: 'measured',
    });
    expect(JSON.stringify(record)).not.toContain('hello there');
  });

  it('streams text that the SDK assembles, and settles usage from response.completed', async () => {
    upstream.nextResponse({ type: 'answer', usage: { inputTokens: 40, cachedInputTokens: 32, outputTokens: 7 } });
    const stream = client.responses.stream({ model: 'gpt-test', input: 'stream this please' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('echo: stream this please');
    expect(deltas.length).toBeGreaterThan(1);
    expect(upstream.requests[0]?.json).toMatchObject({ stream: true, model: 'gpt-test' });

    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(Object.keys(member.leases)).toEqual([]);
    const records = await allRecords(gateway.host.services);
    expect(records.find((record) => record.state !== 'running' && record.inputTokens === 40)).toMatchObject({
      state: 'completed',
      stream: true,
      cachedInputTokens: 32,
      outputTokens: 7,
      charge: 47,
      source: 'measured',
    });
  });

  it('relays each event before the upstream has sent the next, and settles at completion', async () => {
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate, textChunks: ['one ', 'two ', 'three'] });
    const { data: stream, response } = await client.responses
      .create({ model: 'gpt-test', input: 'count', stream: true })
      .withResponse();
    const iterator = stream[Symbol.asyncIterator]();
    gate.release(2);
    expect((await iterator.next()).value?.type).toBe('response.created');
    expect((await iterator.next()).value?.type).toBe('response.in_progress');
    expect(upstream.requests[0]?.outcome).toBe('pending');

    gate.releaseAll();
    const types: string[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) types.push(next.value.type);
    expect(types.at(-1)).toBe('response.completed');
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ state: 'completed', stream: true, inputTokens: 17, outputTokens: 9 });
  });

  it('round-trips a function call, plain and streamed', async () => {
    const first = await client.responses.create({
      model: 'gpt-test',
      input: 'weather in Oslo?',
      tools: [weatherTool],
      tool_choice: 'auto',
    });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call in the answer');
    expect(call.name).toBe('get_weather');
    expect(JSON.parse(call.arguments)).toEqual({ input: 'weather in Oslo?' });
    expect(upstream.requests[0]?.json).toMatchObject({ tools: [weatherTool], tool_choice: 'auto' });

    const followUp: ResponseInputItem[] = [
      { role: 'user', content: 'weather in Oslo?' },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21°C' },
    ];
    const second = await client.responses.create({ model: 'gpt-test', input: followUp, tools: [weatherTool] });
    expect(second.output_text).toBe('echo: sunny, 21°C');

    const streamed = await client.responses
      .stream({ model: 'gpt-test', input: 'weather in Bergen?', tools: [weatherTool] })
      .finalResponse();
    const streamedCall = streamed.output.find((item) => item.type === 'function_call');
    expect(streamedCall?.type === 'function_call' && JSON.parse(streamedCall.arguments)).toEqual({
      input: 'weather in Bergen?',
    });
  });

  it("raises an upstream 4xx as the SDK's error with the upstream's status and message", async () => {
    upstream.nextResponse({ type: 'error', status: 400, message: 'input is too long for this model' });
    const error = await client.responses.create({ model: 'gpt-test', input: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining('input is too long') });

    upstream.nextResponse({ type: 'error', status: 422, message: 'unprocessable' });
    const streamed = await client.responses
      .create({ model: 'gpt-test', input: 'x', stream: true })
      .catch((caught: unknown) => caught);
    expect(streamed).toBeInstanceOf(OpenAI.UnprocessableEntityError);
  });

  it("raises the gateway's own 4xx as the SDK's error with the gateway's message and code", async () => {
    const unknown = await client.responses
      .create({ model: 'no-such-model', input: 'x' })
      .catch((caught: unknown) => caught);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({
      status: 404,
      code: 'unknown_model',
      message: expect.stringContaining('no-such-model'),
    });

    const unsupported = await client.responses
      .create({ model: 'google/gemini-only', input: 'x' })
      .catch((caught: unknown) => caught);
    expect(unsupported).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unsupported).toMatchObject({ status: 400, code: 'unsupported_wire' });

    const invalid = await client.responses
      .create({ model: 'gpt-test', input: 'x', max_output_tokens: -3 })
      .catch((caught: unknown) => caught);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request' });

    const badKey = new OpenAI({ apiKey: 'sk-gw-not-a-key', baseURL: gateway.baseURL, maxRetries: 0 });
    const unauthorized = await badKey.responses
      .create({ model: 'gpt-test', input: 'x' })
      .catch((caught: unknown) => caught);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'invalid_key' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('ends a stream that the upstream cuts off with an error event and a conservative charge', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 3 });
    const { data: stream, response } = await client.responses
      .create({ model: 'gpt-test', input: 'a b c d', stream: true })
      .withResponse();
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'upstream_interrupted' });
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ source: 'conservative', state: 'failed' });
  });

  it("relays the upstream's own mid-stream error event and settles the request as failed", async () => {
    upstream.nextResponse({ type: 'answer', streamError: { afterChunks: 4, status: 429, message: 'slow down' } });
    const { data: stream, response } = await client.responses
      .create({ model: 'gpt-test', input: 'a b', stream: true })
      .withResponse();
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'rate_limit_exceeded', message: 'slow down' });
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ source: 'conservative', state: 'failed', status: 200 });
  });
});
