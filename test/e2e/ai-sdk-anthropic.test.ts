import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { thinkingSignature } from '../support/fake-upstream/signed-thinking.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * `@ai-sdk/anthropic` (the Vercel AI SDK 6 line) pointed at the gateway: a chat-only model answers through the
 * messages → chat translation, K2.7 natively; a multi-step tool loop sends K2.7's signed thinking back unchanged.
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

const anthropic = () => createAnthropic({ apiKey: fixture.member.key, baseURL: `${gateway.url}/v1` });

const weather = tool({
  description: 'Weather for a city',
  inputSchema: jsonSchema<{ input: string }>({ type: 'object', properties: { input: { type: 'string' } } }),
  execute: async () => 'Sunny, 21 °C',
});

describe.each([
  ['a chat-only model', 'acme/acme-1', '/v1/chat/completions'],
  ['K2.7', 'alpha/alpha-k2.7-code', '/alpha-messages/v1/messages'],
])('@ai-sdk/anthropic on %s', (_name, model, upstreamPath) => {
  it('generates text, with the usage the upstream reported', async () => {
    const result = await generateText({ model: anthropic()(model), prompt: 'hello there', maxOutputTokens: 2000 });
    expect(result.text).toBe('echo: hello there');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 17, outputTokens: 9 });
    expect(upstream.requests[0]?.path).toBe(upstreamPath);
  });

  it('streams a tool loop: the call, the result sent back, the final text', async () => {
    const result = streamText({
      model: anthropic()(model),
      prompt: 'Weather in Oslo?',
      maxOutputTokens: 2000,
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('echo: Sunny, 21 °C');
    const steps = await result.steps;
    expect(steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0]?.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { input: 'Weather in Oslo?' } });
    expect(upstream.requests).toHaveLength(2);
  });
});

describe('@ai-sdk/anthropic and K2.7`s signed thinking', () => {
  it('keeps the signature on the reasoning and sends it back unchanged in the next step of a tool loop', async () => {
    const result = await generateText({
      model: anthropic()('alpha/alpha-k2.7-code'),
      prompt: 'Weather in Oslo?',
      maxOutputTokens: 2000,
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('echo: Sunny, 21 °C');
    const firstStepReasoning = result.steps[0]?.content.find((part) => part.type === 'reasoning');
    expect(firstStepReasoning?.text).toBe('considering: Weather in Oslo?');
    expect(firstStepReasoning?.providerMetadata?.anthropic?.signature).toBe(
      thinkingSignature('considering: Weather in Oslo?'),
    );
    // The strict upstream accepted the second step: its assistant turn opens with the signed block.
    const sent = upstream.requests[1]?.json as { messages: { role: string; content: unknown[] }[] };
    expect(sent.messages[1]?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'considering: Weather in Oslo?',
      signature: thinkingSignature('considering: Weather in Oslo?'),
    });
  });
});
