import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { thinkingSignature } from '../support/fake-upstream/signed-thinking.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * K2.7 through `/v1/chat/completions`: its upstream signs its reasoning and, in a tool loop, refuses reasoning that
 * does not come back unchanged (the fake upstream checks as the vendor does). The chat answer carries the signed
 * blocks as `thinking_blocks` beside `reasoning_content`, and a client that sends the assistant message back as it
 * got it — the openai SDK keeps fields it does not know — continues the loop.
 */
const fixture = useGatewayFixture({ connections: alphaRoutes, member: { dailyTokens: 5_000_000 } });
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  client = openaiClient(gateway, fixture.member.key);
});

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Oslo?' };

type MessageWithBlocks = OpenAI.ChatCompletionMessage & { reasoning_content?: string; thinking_blocks?: unknown[] };

/** What the upstream received as the assistant turn of the second request. */
const sentAssistantTurn = () =>
  (upstream.requests[1]!.json as { messages: { role: string; content: unknown[] }[] }).messages[1]?.content;

function toolResultFor(message: OpenAI.ChatCompletionMessage): OpenAI.ChatCompletionMessageParam {
  return { role: 'tool', tool_call_id: message.tool_calls?.[0]?.id ?? '', content: 'Sunny, 21 °C' };
}

/** The loop's first turn: the model reasons, signs its reasoning and calls the weather tool. */
async function firstTurn(behaviour: { redactedThinking?: boolean } = {}): Promise<MessageWithBlocks> {
  upstream.nextResponse({ type: 'answer', ...behaviour });
  const first = await client.chat.completions.create({
    model: 'alpha-k2.7-code',
    max_tokens: 3000,
    messages: [question],
    tools: [weatherTool],
  });
  return first.choices[0]!.message as MessageWithBlocks;
}

describe('signed thinking through chat completions (K2.7)', () => {
  it('returns thinking_blocks with the signature and redacted thinking, and takes them back before the tool call', async () => {
    const message = await firstTurn({ redactedThinking: true });
    expect(message.reasoning_content).toBe('considering: Weather in Oslo?');
    expect(message.thinking_blocks).toEqual([
      {
        type: 'thinking',
        thinking: 'considering: Weather in Oslo?',
        signature: thinkingSignature('considering: Weather in Oslo?'),
      },
      { type: 'redacted_thinking', data: expect.stringMatching(/^fake-redacted\./) },
    ]);

    const second = await client.chat.completions.create({
      model: 'alpha-k2.7-code',
      max_tokens: 3000,
      tools: [weatherTool],
      messages: [question, message, toolResultFor(message)],
    });
    expect(second.choices[0]?.message.content).toBe('echo: Sunny, 21 °C');
    expect(sentAssistantTurn()).toEqual([
      ...(message.thinking_blocks ?? []),
      expect.objectContaining({ type: 'tool_use' }),
    ]);
  });

  it('streams them once, on the finishing chunk, so the SDK`s assembled message goes back as it is', async () => {
    const stream = client.chat.completions.stream({
      model: 'alpha-k2.7-code',
      max_tokens: 3000,
      messages: [question],
      tools: [weatherTool],
    });
    const chunksWithBlocks: unknown[] = [];
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta as { thinking_blocks?: unknown } | undefined;
      if (delta?.thinking_blocks) chunksWithBlocks.push(chunk);
    });
    const first = await stream.finalChatCompletion();
    expect(chunksWithBlocks).toHaveLength(1);
    const message = first.choices[0]!.message as MessageWithBlocks;
    expect(message.thinking_blocks).toEqual([
      {
        type: 'thinking',
        thinking: 'considering: Weather in Oslo?',
        signature: thinkingSignature('considering: Weather in Oslo?'),
      },
    ]);
    const second = await client.chat.completions.create({
      model: 'alpha-k2.7-code',
      max_tokens: 3000,
      tools: [weatherTool],
      messages: [question, message, toolResultFor(message)],
    });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(sentAssistantTurn()?.[0]).toEqual(message.thinking_blocks?.[0]);
  });

  it('a client that sends back only the fields chat defines goes on: the first call id gives the signed blocks back', async () => {
    const message = await firstTurn({ redactedThinking: true });
    // As the AI SDK and LangChain rebuild an assistant message: its text and tool calls, nothing else.
    const rebuilt: OpenAI.ChatCompletionAssistantMessageParam = {
      role: 'assistant',
      content: message.content,
      tool_calls: message.tool_calls,
    };
    const second = await client.chat.completions.create({
      model: 'alpha-k2.7-code',
      max_tokens: 3000,
      tools: [weatherTool],
      messages: [question, rebuilt, toolResultFor(message)],
    });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    // The upstream got its blocks back unchanged before the call, and the call and its result under its own id.
    expect(sentAssistantTurn()).toEqual([
      ...(message.thinking_blocks ?? []),
      expect.objectContaining({ type: 'tool_use', id: 'toolu_fake_0' }),
    ]);
    const sentResult = (upstream.requests[1]!.json as { messages: { content: { tool_use_id?: string }[] }[] })
      .messages[2]?.content[0];
    expect(sentResult?.tool_use_id).toBe('toolu_fake_0');
  });

  it('a turn with neither the blocks nor an id that carries them meets the strict upstream`s refusal, relayed', async () => {
    const { thinking_blocks: _dropped, ...withoutBlocks } = await firstTurn();
    // An id the client rewrote, keeping only the upstream's part: nothing carries the signature any more.
    const plainId = (id: string) => id.split('_gwr1_')[0] ?? id;
    const refused = await client.chat.completions
      .create({
        model: 'alpha-k2.7-code',
        max_tokens: 3000,
        tools: [weatherTool],
        messages: [
          question,
          {
            ...withoutBlocks,
            tool_calls: withoutBlocks.tool_calls?.map((call) => ({ ...call, id: plainId(call.id) })),
          } as OpenAI.ChatCompletionMessageParam,
          { role: 'tool', tool_call_id: plainId(withoutBlocks.tool_calls?.[0]?.id ?? ''), content: 'Sunny' },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toContain('signature');
  });
});
