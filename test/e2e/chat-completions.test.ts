import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { createStreamGate, type FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

const fixture = useGatewayFixture({
  connections: [{ provider: 'openai', wire: 'openai-chat', models: ['gpt-test'], apiKey: 'provider-secret' }],
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

const hello = [{ role: 'user' as const, content: 'hello there' }];

describe('chat completions through the gateway with the official openai SDK', () => {
  it('answers a plain request, sends the provider credential upstream and records measured usage', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'openai/gpt-test', messages: hello })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('echo: hello there');
    expect(data.usage?.prompt_tokens).toBe(17);

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer provider-secret');
    expect(JSON.stringify(sent.headers)).not.toContain(key);
    expect(sent.json).toMatchObject({ model: 'gpt-test', messages: hello });

    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      state: 'completed',
      status: 200,
      provider: 'openai',
      model: 'openai/gpt-test',
      memberId,
      inputTokens: 17,
      cachedInputTokens: 5,
      outputTokens: 9,
      charge: 26,
      source: 'measured',
    });
    expect(JSON.stringify(record)).not.toContain('hello there');
  });

  it('streams without a usage chunk the client did not ask for, yet measures usage', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-test', messages: hello, stream: true });
    let text = '';
    const usages: unknown[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usages.push(chunk.usage);
    }
    expect(text).toBe('echo: hello there');
    expect(usages).toEqual([]);
    expect(upstream.requests[0]?.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(Object.keys(member.leases)).toEqual([]);
  });

  it('includes usage in the stream when the client asks for it', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const usages = [];
    for await (const chunk of stream) if (chunk.usage) usages.push(chunk.usage);
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject({ prompt_tokens: 17, completion_tokens: 9 });
  });

  it('passes function tools and tool_choice through and returns tool calls', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
      tools,
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(upstream.requests[0]?.json).toMatchObject({ tools, tool_choice: 'auto', parallel_tool_calls: false });

    // The round trip: the assistant's tool call and the tool's result go back, and the model answers in text.
    if (call?.type !== 'function') throw new Error('expected a function call');
    const answer = await client.chat.completions.create({
      model: 'gpt-test',
      tools,
      messages: [
        { role: 'user', content: 'weather in Oslo?' },
        completion.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '{"celsius": 4}' },
      ],
    });
    expect(answer.choices[0]?.finish_reason).toBe('stop');
    expect(answer.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(answer.choices[0]?.message.content).toBe('echo: {"celsius": 4}');
    expect(upstream.requests[1]?.json).toMatchObject({
      messages: [
        { role: 'user', content: 'weather in Oslo?' },
        { role: 'assistant', tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather' } }] },
        { role: 'tool', tool_call_id: call.id, content: '{"celsius": 4}' },
      ],
    });

    const stream = client.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
      tools,
    });
    const final = await stream.finalChatCompletion();
    const streamedCall = final.choices[0]?.message.tool_calls?.[0];
    expect(streamedCall?.type === 'function' && JSON.parse(streamedCall.function.arguments)).toEqual({
      input: 'weather in Oslo?',
    });
    if (streamedCall?.type !== 'function') throw new Error('expected a function call');
    const streamedAnswer = await client.chat.completions
      .stream({
        model: 'gpt-test',
        tools,
        messages: [
          { role: 'user', content: 'weather in Oslo?' },
          final.choices[0]!.message,
          { role: 'tool', tool_call_id: streamedCall.id, content: 'cold' },
        ],
      })
      .finalChatCompletion();
    expect(streamedAnswer.choices[0]?.finish_reason).toBe('stop');
    expect(streamedAnswer.choices[0]?.message.content).toBe('echo: cold');
  });

  it('delivers each chunk before the upstream has sent the next', async () => {
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate, textChunks: ['one ', 'two ', 'three'] });
    const stream = await client.chat.completions.create({ model: 'gpt-test', messages: hello, stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    gate.release(2);
    const first = await iterator.next();
    const second = await iterator.next();
    expect(first.value?.choices[0]?.delta.role ?? second.value?.choices[0]?.delta.content).toBeDefined();
    expect(upstream.requests[0]?.outcome).toBe('pending');
    gate.releaseAll();
    let rest = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      rest += next.value.choices[0]?.delta.content ?? '';
    }
    expect(`${second.value?.choices[0]?.delta.content ?? ''}${rest}`).toContain('three');
  });

  it('aborts the upstream request when the client cancels, and keeps the reservation as the charge', async () => {
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate, textChunks: ['a ', 'b ', 'c'] });
    const controller = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'gpt-test', messages: hello, stream: true }, { signal: controller.signal })
      .withResponse();
    gate.release(1);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    const closed = await upstream.waitForClientClose(0);
    expect(closed.clientClosedEarly).toBe(true);
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ source: 'conservative', state: 'failed' });
    expect(record.charge).toBe(record.reserved);
  });

  it('ends a stream that the upstream cuts off with an error event and a conservative charge', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 2, textChunks: ['a ', 'b ', 'c ', 'd'] });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'gpt-test', messages: hello, stream: true })
      .withResponse();
    await expect(async () => {
      for await (const _chunk of stream) {
        // drain
      }
    }).rejects.toThrow(/interrupted/);
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ source: 'conservative', state: 'failed' });
    expect(record.state === 'failed' && record.charge).toBe(record.reserved);
    expect(record.reserved).toBeGreaterThan(0);
  });
});
