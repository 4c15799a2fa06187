import { createOpenAI } from '@ai-sdk/openai';
import type Anthropic from '@anthropic-ai/sdk';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import type OpenAI from 'openai';
import type { ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * The K2.7 route gives chat and Responses clients a first call id that carries the answer's signed reasoning
 * (reasoning-in-call-id.ts): the upstream's id, a marker, and kilobytes of encoded blocks. A client may send that
 * history to any other model next — a fallback, or a model switched in the middle of an agent's loop — and no
 * upstream may see the carrier: OpenAI refuses a call id over 40 characters on chat and 64 on Responses (the fake
 * upstream refuses as it does). Every route sends the upstream id the carrier holds.
 */
const fixture = useGatewayFixture({
  connections: [...acmeOnEveryWire, ...alphaRoutes],
  member: { dailyTokens: 5_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  openai = openaiClient(gateway, fixture.member.key);
  anthropic = anthropicClient(gateway, fixture.member.key);
});

const k27 = 'alpha/alpha-k2.7-code';
/** The id the fake messages upstream gives the first call of its first answer. */
const upstreamId = 'toolu_fake_0';
const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const question = 'Weather in Oslo?';

/** What the upstream received for the request at `index`, and where. */
const sent = (index: number) => {
  const request = upstream.requests[index];
  if (!request) throw new Error(`the upstream received no request ${index}`);
  return { path: request.path, json: request.json as Record<string, unknown> };
};

/** Every call id the upstream received in a chat body: the calls, then the results. */
function chatIds(body: Record<string, unknown>): string[] {
  const messages = body.messages as { tool_calls?: { id: string }[]; tool_call_id?: string }[];
  return [
    ...messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id)),
    ...messages.flatMap((message) => (message.tool_call_id === undefined ? [] : [message.tool_call_id])),
  ];
}

/** Every call id the upstream received in a messages body: the tool uses, then the results. */
function messagesIds(body: Record<string, unknown>): string[] {
  const blocks = (
    body.messages as { content: string | { type: string; id?: string; tool_use_id?: string }[] }[]
  ).flatMap((turn) => (typeof turn.content === 'string' ? [] : turn.content));
  return [
    ...blocks.flatMap((block) => (block.type === 'tool_use' && block.id ? [block.id] : [])),
    ...blocks.flatMap((block) => (block.type === 'tool_result' && block.tool_use_id ? [block.tool_use_id] : [])),
  ];
}

function responsesIds(body: Record<string, unknown>): string[] {
  return (body.input as { call_id?: string }[]).flatMap((item) => (item.call_id ? [item.call_id] : []));
}

function expectCarrier(id: string): void {
  expect(id).toMatch(new RegExp(`^${upstreamId}_gwr1_[\\w-]+$`));
  expect(id.length).toBeGreaterThan(64);
}

const chatTool = { type: 'function' as const, function: { name: 'get_weather', parameters: weatherParameters } };

/** A tool turn on K2.7 through chat completions: the assistant message, whose call id carries the reasoning. */
async function k27ChatTurn(): Promise<OpenAI.ChatCompletionMessage> {
  const answer = await openai.chat.completions.create({
    model: k27,
    max_tokens: 3000,
    messages: [{ role: 'user', content: question }],
    tools: [chatTool],
  });
  const { message } = answer.choices[0]!;
  expectCarrier(message.tool_calls?.[0]?.id ?? '');
  // The tests read what the next request sent upstream as request 0.
  upstream.reset();
  return message;
}

describe('a chat history from the K2.7 route, sent to other routes', () => {
  /** The turn and its result, as the AI SDK and LangChain send it back: text and tool calls only. */
  async function k27History(): Promise<OpenAI.ChatCompletionMessageParam[]> {
    const { content, tool_calls } = await k27ChatTurn();
    return [
      { role: 'user', content: question },
      { role: 'assistant', content, tool_calls },
      { role: 'tool', tool_call_id: tool_calls?.[0]?.id ?? '', content: 'Sunny' },
    ];
  }

  it('a chat pass-through (an OpenAI-compatible model) gets the upstream id, on the call and on its result', async () => {
    const messages = await k27History();
    const answer = await openai.chat.completions.create({ model: 'acme/acme-1', messages, tools: [chatTool] });
    expect(answer.choices[0]?.message.content).toBe('echo: Sunny');
    expect(sent(0).path).toBe('/v1/chat/completions');
    expect(chatIds(sent(0).json)).toEqual([upstreamId, upstreamId]);
  });

  it('so does a streamed one', async () => {
    const messages = await k27History();
    const stream = openai.chat.completions.stream({ model: 'acme/acme-1', messages, tools: [chatTool] });
    expect((await stream.finalChatCompletion()).choices[0]?.message.content).toBe('echo: Sunny');
    expect(chatIds(sent(0).json)).toEqual([upstreamId, upstreamId]);
  });

  it('the chat → messages hop on a model that does not sign its reasoning gets it too', async () => {
    const messages = await k27History();
    const answer = await openai.chat.completions.create({ model: 'acme/acme-m', messages, tools: [chatTool] });
    expect(answer.choices[0]?.message.content).toBe('echo: Sunny');
    expect(sent(0).path).toBe('/messages-route/v1/messages');
    expect(messagesIds(sent(0).json)).toEqual([upstreamId, upstreamId]);
  });
});

describe('a Responses history from the K2.7 route, sent to other routes', () => {
  const responsesTool = {
    type: 'function' as const,
    name: 'get_weather',
    parameters: weatherParameters,
    strict: false,
  };

  /** A tool turn on K2.7 and its output, as a client that leaves the reasoning item out sends it back. */
  async function k27Input(): Promise<ResponseInputItem[]> {
    const answer = await openai.responses.create({ model: k27, input: question, tools: [responsesTool], store: false });
    const call = answer.output.find((item): item is ResponseFunctionToolCall => item.type === 'function_call');
    expectCarrier(call?.call_id ?? '');
    upstream.reset();
    return [
      { role: 'user', content: question },
      { type: 'function_call', call_id: call!.call_id, name: call!.name, arguments: call!.arguments },
      { type: 'function_call_output', call_id: call!.call_id, output: 'Sunny' },
    ];
  }

  for (const [route, model, path, idsOf] of [
    ['a Responses pass-through', 'acme/acme-r', '/responses-route/v1/responses', responsesIds],
    ['the Responses → chat translation', 'acme/acme-1', '/v1/chat/completions', chatIds],
    [
      'Responses → chat → messages on a model that does not sign',
      'acme/acme-m',
      '/messages-route/v1/messages',
      messagesIds,
    ],
  ] as const) {
    it(`${route} gets the upstream id on the call and on its output`, async () => {
      const input = await k27Input();
      const answer = await openai.responses.create({ model, input, tools: [responsesTool], store: false });
      expect(answer.output_text).toBe('echo: Sunny');
      expect(sent(0).path).toBe(path);
      expect(idsOf(sent(0).json)).toEqual([upstreamId, upstreamId]);
    });
  }
});

describe('a messages history that kept a carrier id (a framework that converts histories between formats)', () => {
  const messagesTool: Anthropic.Tool = {
    name: 'get_weather',
    input_schema: weatherParameters as Anthropic.Tool.InputSchema,
  };

  const carrierId = async () => (await k27ChatTurn()).tool_calls?.[0]?.id ?? '';

  const historyWith = (id: string): Anthropic.MessageParam[] => [
    { role: 'user', content: question },
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'get_weather', input: { city: 'Oslo' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'Sunny' }] },
  ];

  for (const [route, model, path, idsOf] of [
    ['a messages pass-through', 'acme/acme-m', '/messages-route/v1/messages', messagesIds],
    ['the messages → chat translation', 'acme/acme-1', '/v1/chat/completions', chatIds],
  ] as const) {
    it(`${route} gets the upstream id on the tool use and on its result`, async () => {
      const messages = historyWith(await carrierId());
      const answer = await anthropic.messages.create({ model, max_tokens: 300, messages, tools: [messagesTool] });
      expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: Sunny' })]);
      expect(sent(0).path).toBe(path);
      expect(idsOf(sent(0).json)).toEqual([upstreamId, upstreamId]);
    });
  }

  it('a token count passed through to the messages upstream does too', async () => {
    const messages = historyWith(await carrierId());
    await anthropic.messages.countTokens({ model: 'acme/acme-m', messages, tools: [messagesTool] });
    expect(sent(0).path).toBe('/messages-route/v1/messages/count_tokens');
    expect(messagesIds(sent(0).json)).toEqual([upstreamId, upstreamId]);
  });
});

describe('an AI SDK agent that switches model after a K2.7 step', () => {
  const weather = tool({
    inputSchema: jsonSchema<{ input?: string }>({ type: 'object', properties: { input: { type: 'string' } } }),
    execute: async () => 'Sunny',
  });
  const provider = () => createOpenAI({ apiKey: fixture.member.key, baseURL: gateway.baseURL });
  // Under a finite allowance a Responses pass-through refuses references to stored items: the SDK sends them whole.
  const storeOff = { openai: { store: false } };

  for (const [name, first, next, idsOf, providerOptions] of [
    [
      'chat: K2.7, then a chat pass-through',
      () => provider().chat(k27),
      () => provider().chat('acme/acme-1'),
      chatIds,
      {},
    ],
    ['Responses: K2.7, then a chat-only model', () => provider()(k27), () => provider()('acme/acme-1'), chatIds, {}],
    [
      'Responses: K2.7, then a Responses pass-through',
      () => provider()(k27),
      () => provider()('acme/acme-r'),
      responsesIds,
      storeOff,
    ],
  ] as const) {
    it(`${name}: the next step goes on, with the upstream id`, async () => {
      const result = await generateText({
        model: first(),
        prompt: question,
        tools: { weather },
        stopWhen: stepCountIs(3),
        prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { model: next() } : undefined),
        providerOptions,
      });
      expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
      expectCarrier(result.steps[0]?.toolCalls[0]?.toolCallId ?? '');
      expect(result.text).toBe('echo: Sunny');
      expect(idsOf(sent(1).json)).toEqual([upstreamId, upstreamId]);
    });
  }
});
