import { createOpenAI } from '@ai-sdk/openai';
import type Anthropic from '@anthropic-ai/sdk';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeToolCall, FakeUpstream } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * Parallel tool calls — one answer that calls two tools — streamed through every route a coding agent or framework
 * takes, with the official SDKs assembling them: each call keeps its own id, name, arguments and `index`, and both
 * results go back upstream in the next turn, in the upstream's form (two `tool` messages on chat, one user turn with
 * two `tool_result` blocks on messages).
 */
const fixture = useGatewayFixture({
  connections: [{ provider: 'acme', wire: 'openai-chat', models: ['acme-1'] }, ...alphaRoutes],
  member: { dailyTokens: 5_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

const chatOnly = 'acme/acme-1';
const k27 = 'alpha/alpha-k2.7-code';

const twoCalls: FakeToolCall[] = [
  { name: 'get_weather', arguments: '{"city":"Oslo"}' },
  { name: 'get_time', arguments: '{"zone":"CET"}' },
];
const expectedInputs = [
  ['get_weather', { city: 'Oslo' }],
  ['get_time', { zone: 'CET' }],
];
const schema = { type: 'object', properties: { city: { type: 'string' }, zone: { type: 'string' } } } as const;

type ChatTurn = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: { id: string }[] };
type MessagesTurn = { role: string; content: { type: string; tool_use_id?: string; id?: string }[] | string };

/** The ids the upstream gave the two calls of its first answer, which it must get back with their results. */
const upstreamIds = (model: string) =>
  model === k27 ? ['toolu_fake_0', 'toolu_fake_0_1'] : ['call_fake_0', 'call_fake_0_1'];

/** What the upstream received as the next turn's tool results, in its own form, by the call ids it gave. */
function resultsSentUpstream(model: string): string[] {
  const body = upstream.requests.at(-1)?.json as { messages: (ChatTurn | MessagesTurn)[] };
  if (model === k27) {
    const last = body.messages.at(-1) as MessagesTurn;
    expect(last.role).toBe('user');
    return (last.content as { type: string; tool_use_id?: string }[])
      .filter((block) => block.type === 'tool_result')
      .map((block) => block.tool_use_id ?? '');
  }
  return (body.messages as ChatTurn[]).filter((turn) => turn.role === 'tool').map((turn) => turn.tool_call_id ?? '');
}

describe.each([chatOnly, k27])('two tool calls in one streamed answer of %s', (model) => {
  it('openai chat completions: the stream helper assembles both calls by index, and both results go back', async () => {
    const client = openaiClient(gateway, fixture.member.key);
    const tools: OpenAI.ChatCompletionTool[] = ['get_weather', 'get_time'].map((name) => ({
      type: 'function',
      function: { name, parameters: schema },
    }));
    upstream.nextResponse({ type: 'answer', toolCalls: twoCalls });
    const indexes = new Set<number>();
    const stream = client.chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'Weather and time in Oslo?' }],
      tools,
      stream_options: { include_usage: true },
    });
    stream.on('chunk', (chunk) => {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) indexes.add(call.index);
    });
    const first = await stream.finalChatCompletion();
    const message = first.choices[0]?.message;
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect([...indexes]).toEqual([0, 1]);
    const calls = message?.tool_calls ?? [];
    expect(
      calls.map((call) => (call.type === 'function' ? [call.function.name, JSON.parse(call.function.arguments)] : [])),
    ).toEqual(expectedInputs);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(first.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 9 });

    // The assistant message goes back as it came (its signed thinking included, on K2.7), with both results.
    await client.chat.completions.create({
      model,
      tools,
      messages: [
        { role: 'user', content: 'Weather and time in Oslo?' },
        message as OpenAI.ChatCompletionAssistantMessageParam,
        ...calls.map((call, position) => ({
          role: 'tool' as const,
          tool_call_id: call.id,
          content: position === 0 ? 'sunny' : '14:00',
        })),
      ],
    });
    expect(resultsSentUpstream(model)).toEqual(upstreamIds(model));
  });

  it('anthropic messages: two tool_use blocks in turn, and one user turn with both tool_result blocks', async () => {
    const client = anthropicClient(gateway, fixture.member.key);
    const tools: Anthropic.Tool[] = ['get_weather', 'get_time'].map((name) => ({ name, input_schema: schema }));
    upstream.nextResponse({ type: 'answer', toolCalls: twoCalls });
    const prompt: Anthropic.MessageParam = { role: 'user', content: 'Weather and time in Oslo?' };
    const first = await client.messages.stream({ model, max_tokens: 4_000, tools, messages: [prompt] }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const uses = first.content.filter((block) => block.type === 'tool_use');
    expect(uses.map((block) => [block.name, block.input])).toEqual(expectedInputs);
    expect(new Set(uses.map((block) => block.id)).size).toBe(2);

    const second = await client.messages
      .stream({
        model,
        max_tokens: 4_000,
        tools,
        messages: [
          prompt,
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: uses.map((block, position) => ({
              type: 'tool_result' as const,
              tool_use_id: block.id,
              content: position === 0 ? 'sunny' : '14:00',
            })),
          },
        ],
      })
      .finalMessage();
    expect(second.stop_reason).toBe('end_turn');
    expect(resultsSentUpstream(model)).toEqual(upstreamIds(model));
  });

  it('openai responses: two function_call items with their own output_index, and both outputs go back', async () => {
    const client = openaiClient(gateway, fixture.member.key);
    const tools: OpenAI.Responses.FunctionTool[] = ['get_weather', 'get_time'].map((name) => ({
      type: 'function',
      name,
      parameters: schema,
      strict: false,
    }));
    upstream.nextResponse({ type: 'answer', toolCalls: twoCalls });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather and time in Oslo?' }];
    const stream = client.responses.stream({
      model,
      input,
      tools,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const deltasByItem = new Map<string, string>();
    stream.on('response.function_call_arguments.delta', (event) => {
      deltasByItem.set(event.item_id, (deltasByItem.get(event.item_id) ?? '') + event.delta);
    });
    const first = await stream.finalResponse();
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual(expectedInputs);
    expect(calls.map((call) => deltasByItem.get(call.id ?? ''))).toEqual(calls.map((call) => call.arguments));
    expect(first.usage).toMatchObject({ input_tokens: 17, output_tokens: 9 });

    await client.responses.create({
      model,
      tools,
      store: false,
      input: [
        ...input,
        ...first.output.filter((item) => item.type === 'reasoning' || item.type === 'function_call'),
        ...calls.map((call, position) => ({
          type: 'function_call_output' as const,
          call_id: call.call_id,
          output: position === 0 ? 'sunny' : '14:00',
        })),
      ] as OpenAI.Responses.ResponseInputItem[],
    });
    expect(resultsSentUpstream(model)).toEqual(upstreamIds(model));
  });
});

describe('the Vercel AI SDK running two tools of one step on a chat-only model', () => {
  it('streamText through /v1/responses: both tools run, and the next step carries both results', async () => {
    const openai = createOpenAI({ apiKey: fixture.member.key, baseURL: gateway.baseURL });
    const ran: string[] = [];
    const make = (name: string) =>
      tool({
        inputSchema: jsonSchema<Record<string, string>>(schema),
        execute: async (input) => {
          ran.push(`${name} ${JSON.stringify(input)}`);
          return name === 'get_weather' ? 'sunny' : '14:00';
        },
      });
    upstream.setScenario((request) =>
      request.index === 0 ? { type: 'answer', toolCalls: twoCalls } : { type: 'answer', text: 'Sunny, 14:00.' },
    );
    const result = streamText({
      model: openai(chatOnly),
      prompt: 'Weather and time in Oslo?',
      tools: { get_weather: make('get_weather'), get_time: make('get_time') },
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('Sunny, 14:00.');
    expect(ran.sort()).toEqual(['get_time {"zone":"CET"}', 'get_weather {"city":"Oslo"}']);
    const second = upstream.requests[1]?.json as { messages: ChatTurn[] };
    expect(second.messages.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(second.messages[1]?.tool_calls?.map((call) => call.id)).toEqual(['call_fake_0', 'call_fake_0_1']);
  });
});
