import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { thinkingSignature } from '../support/fake-upstream/signed-thinking.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * The Vercel AI SDK's OpenAI provider against chat-only models: `openai(model)` speaks Responses, which the gateway
 * translates to chat; `openai.chat(model)` speaks chat, a pass-through. Both the catalog's Beta model and a model a
 * connection declares; and K2.7, whose messages-format upstream checks its signed thinking in a tool loop.
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'acme', wire: 'openai-chat', models: ['acme-1'] },
    { provider: 'beta', wire: 'openai-chat', upstream: 'beta', path: '/beta-route/v1' },
    ...alphaRoutes,
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

/** The paths the SDK called the gateway at, and the bodies it sent. */
const calledPaths: string[] = [];
const sentBodies: unknown[] = [];

function openai() {
  return createOpenAI({
    apiKey: fixture.member.key,
    baseURL: gateway.baseURL,
    fetch: (input, init) => {
      calledPaths.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
      sentBodies.push(typeof init?.body === 'string' ? JSON.parse(init.body) : undefined);
      return fetch(input, init);
    },
  });
}

const weather = tool({
  description: 'The weather in a city',
  inputSchema: jsonSchema<{ input: string }>({
    type: 'object',
    properties: { input: { type: 'string' } },
    required: ['input'],
  }),
  execute: async ({ input }) => `sunny in ${input.replace('weather in ', '')}`,
});

describe('@ai-sdk/openai default provider (Responses) on chat-only models', () => {
  for (const model of ['acme/acme-1', 'beta/beta-4-31b']) {
    it(`${model}: generateText answers through /v1/responses, translated to the chat route`, async () => {
      const result = await generateText({ model: openai()(model), prompt: 'hello there', maxOutputTokens: 200 });
      expect(result.text).toBe('echo: hello there');
      expect(calledPaths.at(-1)).toBe('/v1/responses');
      expect(result.usage).toMatchObject({ inputTokens: 17, outputTokens: 9 });
      expect(upstream.requests[0]?.path).toMatch(/\/chat\/completions$/);
      expect(upstream.requests[0]?.json).toMatchObject({
        messages: [{ role: 'user', content: 'hello there' }],
        max_tokens: 200,
      });
    });
  }

  it('streamText with a tool: the call, the tool run by the SDK, and the next step with its result', async () => {
    const result = streamText({
      model: openai()('acme/acme-1'),
      prompt: 'weather in Oslo',
      tools: { weather },
      stopWhen: stepCountIs(3),
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(calledPaths.slice(-2)).toEqual(['/v1/responses', '/v1/responses']);
    const steps = await result.steps;
    expect(steps[0]?.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ['weather', { input: 'weather in Oslo' }],
    ]);
    expect(text).toBe('echo: sunny in Oslo');
    // The second step went upstream as the whole conversation: the call and its result, in chat form.
    const second = upstream.requests[1]?.json as {
      messages: { role: string; tool_calls?: unknown; content: unknown }[];
    };
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.messages[2]?.content).toBe('sunny in Oslo');
  });

  it('keeps a multi-step loop working on a reasoning model: its reference to the reasoning item is left out', async () => {
    upstream.setScenario((request) =>
      request.index === 0 ? { type: 'answer', reasoning: 'Call the tool.' } : { type: 'answer' },
    );
    const result = await generateText({
      model: openai()('acme/acme-1'),
      prompt: 'weather in Bergen',
      tools: { weather },
      stopWhen: stepCountIs(3),
      // The SDK asks a model it does not know for reasoning only when told it reasons.
      providerOptions: { openai: { forceReasoning: true, reasoningSummary: 'auto' } },
    });
    expect(result.steps[0]?.reasoningText).toBe('Call the tool.');
    expect(result.text).toBe('echo: sunny in Bergen');
    // With `store` left at its default the SDK refers to the reasoning item by id instead of resending it.
    const secondCall = sentBodies.at(-1) as { input: { type?: string; id?: string }[] };
    expect(secondCall.input.map((item) => item.type)).toEqual([
      undefined,
      'item_reference',
      'function_call',
      'function_call_output',
    ]);
    const second = upstream.requests[1]?.json as { messages: { role: string; reasoning_content?: string }[] };
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.messages[1]).not.toHaveProperty('reasoning_content');
  });

  it('sends the reasoning back whole with store: false, through the state the item carries', async () => {
    upstream.setScenario((request) =>
      request.index === 0 ? { type: 'answer', reasoning: 'Call the tool.' } : { type: 'answer' },
    );
    await generateText({
      model: openai()('acme/acme-1'),
      prompt: 'weather in Tromsø',
      tools: { weather },
      stopWhen: stepCountIs(3),
      providerOptions: { openai: { forceReasoning: true, reasoningSummary: 'auto', store: false } },
    });
    const firstCall = sentBodies.at(-2) as { include?: string[]; store?: boolean };
    expect(firstCall).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    const second = upstream.requests[1]?.json as { messages: { role: string; reasoning_content?: string }[] };
    expect(second.messages[1]).toMatchObject({ role: 'assistant', reasoning_content: 'Call the tool.' });
  });
});

describe('@ai-sdk/openai .chat() on a chat-only model', () => {
  it('generates and streams text through /v1/chat/completions, passed through', async () => {
    const result = await generateText({ model: openai().chat('acme/acme-1'), prompt: 'plain chat' });
    expect(result.text).toBe('echo: plain chat');
    expect(calledPaths.at(-1)).toBe('/v1/chat/completions');

    const streamed = streamText({ model: openai().chat('beta/beta-4-31b'), prompt: 'streamed chat' });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe('echo: streamed chat');
    expect((await streamed.usage).outputTokens).toBe(9);
    expect(upstream.requests.map((request) => request.path)).toEqual([
      '/v1/chat/completions',
      '/beta-route/v1/chat/completions',
    ]);
  });
});

/**
 * K2.7 (chat → messages, and Responses → chat → messages) in a tool loop against an upstream that refuses a turn
 * whose reasoning does not come back signed. The AI SDK rebuilds the assistant turn from what it knows — the chat
 * provider sends no reasoning at all, the Responses provider refers to the reasoning item by id — so the signed
 * blocks come back only through the id of the call, which every client sends back with its result.
 */
describe('@ai-sdk/openai in a tool loop on K2.7, whose upstream checks signed thinking', () => {
  const k27 = 'alpha/alpha-k2.7-code';
  const secondAssistantTurn = () =>
    (upstream.requests[1]?.json as { messages: { role: string; content: { type: string }[] }[] } | undefined)
      ?.messages[1];

  for (const [name, model] of [
    ['.chat(), through /v1/chat/completions', () => openai().chat(k27)],
    ['the default provider, through /v1/responses with store at its default', () => openai()(k27)],
  ] as const) {
    it(`${name}: the next step's turn begins with the signed thinking`, async () => {
      const result = await generateText({
        model: model(),
        prompt: 'weather in Oslo',
        tools: { weather },
        stopWhen: stepCountIs(3),
      });
      expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
      expect(result.text).toBe('echo: sunny in Oslo');
      const reasoning = 'considering: weather in Oslo';
      expect(secondAssistantTurn()?.content).toEqual([
        { type: 'thinking', thinking: reasoning, signature: thinkingSignature(reasoning) },
        expect.objectContaining({ type: 'tool_use', id: 'toolu_fake_0' }),
      ]);
    });
  }
});
