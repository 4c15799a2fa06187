import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { refusal } from '../support/openai-refusal.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

// The alpha family's two upstream routes: a chat-completions-style one and a messages-style one.
const fixture = useGatewayFixture({
  connections: [
    {
      provider: 'alpha',
      wire: 'openai-chat',
      path: '/chat-route/v1',
      upstream: 'alpha',
      apiKey: 'alpha-chat-credential',
    },
    {
      provider: 'alpha',
      wire: 'anthropic-messages',
      path: '/messages-route/v1',
      upstream: 'alpha',
      apiKey: 'alpha-messages-credential',
    },
    ...['beta', 'gamma'].map((provider) => ({ provider, wire: 'openai-chat' as const, upstream: provider })),
  ],
  member: { dailyTokens: 10_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let memberId: string;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ memberId } = fixture.member);
  client = openaiClient(gateway, fixture.member.key);
});

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const question = [{ role: 'user' as const, content: 'What is the weather in Oslo?' }];

describe('K2.7 models: chat completions translated to the messages-style route', () => {
  it('runs a tool-calling loop (call, tool result, final answer) without streaming', async () => {
    const { data: first, response } = await client.chat.completions
      .create({ model: 'alpha-k2.7-code', messages: question, tools: [weatherTool], tool_choice: 'auto' })
      .withResponse();
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ input: 'What is the weather in Oslo?' });

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/messages-route/v1/messages');
    expect(sent.headers['x-api-key']).toBe('alpha-messages-credential');
    expect(sent.json).toMatchObject({
      model: 'alpha-for-coding',
      thinking: { type: 'enabled' },
      tool_choice: { type: 'auto' },
      tools: [{ name: 'get_weather', input_schema: weatherTool.function.parameters }],
    });
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ source: 'measured', inputTokens: 17, cachedInputTokens: 5, outputTokens: 9 });

    const second = await client.chat.completions.create({
      model: 'alpha-k2.7-code',
      tools: [weatherTool],
      tool_choice: 'none',
      messages: [
        ...question,
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '{"celsius": 4}' },
      ],
    });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.content).toContain('echo');
    const followUp = upstream.requests[1]?.json as { messages: { role: string; content: { type: string }[] }[] };
    expect(followUp.messages.at(-1)?.content.map((block) => block.type)).toContain('tool_result');
    expect(followUp.messages.at(-2)?.content.map((block) => block.type)).toContain('tool_use');
  });

  it('streams the loop, and the SDK`s own helper assembles the tool calls', async () => {
    const stream = client.chat.completions.stream({
      model: 'alpha/alpha-k2.7-code-highspeed',
      messages: question,
      tools: [weatherTool],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(JSON.parse(call.function.arguments)).toEqual({ input: 'What is the weather in Oslo?' });
    expect(final.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 9 });
    expect(upstream.requests[0]?.json).toMatchObject({ model: 'alpha-for-coding-highspeed', stream: true });

    const answer = client.chat.completions.stream({
      model: 'alpha-k2.7-code',
      messages: [...question, final.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'cold' }],
    });
    let text = '';
    let usageChunks = 0;
    for await (const chunk of answer) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usageChunks++;
    }
    expect(text).toContain('echo');
    expect(usageChunks).toBe(0);
  });

  it('refuses forced tool use, switching thinking off and bad tool arguments before anything is reserved', async () => {
    const before = await memberAfterSettlement(gateway.host.services, memberId);
    const cases: [OpenAI.ChatCompletionCreateParamsNonStreaming, string][] = [
      [
        { model: 'alpha-k2.7-code', messages: question, tools: [weatherTool], tool_choice: 'required' },
        'forced_tool_choice_unsupported',
      ],
      [
        {
          model: 'alpha-k2.7-code',
          messages: question,
          tools: [weatherTool],
          tool_choice: { type: 'function', function: { name: 'get_weather' } },
        },
        'forced_tool_choice_unsupported',
      ],
      [{ model: 'alpha-k2.7-code', messages: question, thinking: { type: 'disabled' } } as never, 'thinking_required'],
      [{ model: 'alpha-k3', messages: question, reasoning_effort: 'none' }, 'thinking_required'],
      [{ model: 'alpha-k3', messages: question, reasoning_effort: 'medium' }, 'invalid_reasoning_effort'],
    ];
    for (const [body, code] of cases) {
      expect(await refusal(client.chat.completions.create(body))).toEqual({ status: 400, code });
    }
    expect(upstream.requests).toHaveLength(0);
    const after = await memberAfterSettlement(gateway.host.services, memberId);
    expect(after.tokenDays).toEqual(before.tokenDays);
  });
});

describe('K3 models: the chat-completions-style route with reasoning effort', () => {
  it('sends each effort upstream, and `high` when the client sends none', async () => {
    for (const effort of ['low', 'high', 'max'] as const) {
      await client.chat.completions.create({
        model: 'alpha-k3',
        messages: question,
        reasoning_effort: effort as never,
      });
    }
    await client.chat.completions.create({ model: 'alpha/alpha-k3-256k', messages: question });
    expect(upstream.requests.map((request) => request.path)).toEqual(Array(4).fill('/chat-route/v1/chat/completions'));
    expect(upstream.requests.map((request) => (request.json as { reasoning_effort: string }).reasoning_effort)).toEqual(
      ['low', 'high', 'max', 'high'],
    );
    expect(upstream.requests[3]?.json).toMatchObject({ model: 'k3-256k' });
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer alpha-chat-credential');
  });

  it('automatic tool use (tool_choice auto) returns tool_calls on both K3 routes, plain and streamed (§4.4 rule 1)', async () => {
    for (const model of ['alpha-k3', 'alpha/alpha-k3-256k']) {
      const completion = await client.chat.completions.create({
        model,
        messages: question,
        tools: [weatherTool],
        tool_choice: 'auto',
      });
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      const call = completion.choices[0]?.message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error(`${model}: expected a function call`);
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual({ input: 'What is the weather in Oslo?' });

      const streamed = await client.chat.completions
        .stream({ model, messages: question, tools: [weatherTool], tool_choice: 'auto' })
        .finalChatCompletion();
      const streamedCall = streamed.choices[0]?.message.tool_calls?.[0];
      expect(streamedCall?.type === 'function' && streamedCall.function.name).toBe('get_weather');
    }
    expect(upstream.requests.map((request) => request.path)).toEqual(Array(4).fill('/chat-route/v1/chat/completions'));
    for (const [index, upstreamModel] of ['k3', 'k3', 'k3-256k', 'k3-256k'].entries()) {
      expect(upstream.requests[index]?.json).toMatchObject({
        model: upstreamModel,
        tools: [weatherTool],
        tool_choice: 'auto',
        reasoning_effort: 'high',
      });
    }
  });

  it('refuses a request above the context window', async () => {
    expect(
      await refusal(
        client.chat.completions.create({ model: 'alpha-k3-256k', messages: question, max_tokens: 300_000 }),
      ),
    ).toEqual({ status: 400, code: 'context_window_exceeded' });
  });
});

describe('Beta and Gamma', () => {
  it('Beta 4 31B streams chat completions and refuses more than 32,768 output tokens', async () => {
    let text = '';
    const stream = await client.chat.completions.create({ model: 'beta-4-31b', messages: question, stream: true });
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('echo');
    expect(
      await refusal(client.chat.completions.create({ model: 'beta-4-31b', messages: question, max_tokens: 32_769 })),
    ).toEqual({ status: 400, code: 'max_output_exceeded' });
  });

  it('Beta and Gamma answer Responses too, translated to their chat route', async () => {
    const beta = await client.responses.create({ model: 'beta/beta-4-31b', input: 'hi' });
    expect(beta.output_text).toBe('echo: hi');
    const gamma = await client.responses.stream({ model: 'gamma', input: 'hello gamma' }).finalResponse();
    expect(gamma.output_text).toBe('echo: hello gamma');
    expect(upstream.requests.map((request) => [request.path, (request.json as { model: string }).model])).toEqual([
      ['/v1/chat/completions', 'beta-4-31b'],
      ['/v1/chat/completions', 'gamma'],
    ]);
    // Beta's maximum output is the cap its chat route gets.
    expect(upstream.requests[0]?.json).toMatchObject({
      max_tokens: 32_768,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(client.chat.completions.create({ model: 'gamma', messages: question })).resolves.toBeDefined();
  });
});

describe('Responses on the alpha models, translated to the route each model uses', () => {
  for (const [model, upstreamPath] of [
    ['alpha-k3', '/chat-route/v1/chat/completions'],
    ['alpha-k2.7-code', '/messages-route/v1/messages'],
  ] as const) {
    it(`${model}: plain, with string input and max_output_tokens, and usage settled`, async () => {
      const { data, response } = await client.responses
        .create({ model, input: 'Say hello', max_output_tokens: 200 })
        .withResponse();
      expect(data.output_text).toBe('echo: Say hello');
      expect(data.usage).toMatchObject({
        input_tokens: 17,
        output_tokens: 9,
        input_tokens_details: { cached_tokens: 5 },
      });
      expect(upstream.requests[0]?.path).toBe(upstreamPath);
      expect(upstream.requests[0]?.json).toMatchObject({ max_tokens: 200 });
      const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
      expect(record).toMatchObject({ wire: 'openai-responses', source: 'measured', charge: 26 });
    });

    it(`${model}: streamed, assembled by the SDK`, async () => {
      const stream = client.responses.stream({ model, input: 'Stream please', max_output_tokens: 100 });
      let deltas = '';
      stream.on('response.output_text.delta', (event) => {
        deltas += event.delta;
      });
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('echo: Stream please');
      expect(deltas).toBe('echo: Stream please');
      expect(final.usage?.output_tokens).toBe(9);
      expect(upstream.requests[0]?.path).toBe(upstreamPath);
    });
  }

  it('sends reasoning.effort to K3 as its chat-style effort', async () => {
    await client.responses.create({ model: 'alpha-k3', input: 'hi', reasoning: { effort: 'low' as never } });
    await client.responses.create({ model: 'alpha-k3', input: 'hi' });
    expect(upstream.requests.map((request) => (request.json as { reasoning_effort: string }).reasoning_effort)).toEqual(
      ['low', 'high'],
    );
  });
});

describe('thinking stays on whichever wire asks to switch it off', () => {
  it('refuses a Responses request that turns thinking off', async () => {
    expect(
      await refusal(
        client.responses.create({ model: 'alpha-k2.7-code', input: 'hi', thinking: { type: 'disabled' } } as never),
      ),
    ).toEqual({ status: 400, code: 'thinking_required' });
    expect(upstream.requests).toHaveLength(0);
  });
});
