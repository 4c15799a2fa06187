import type Anthropic from '@anthropic-ai/sdk';
import LegacyAnthropic from 'anthropic-sdk-legacy';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenCountSourceHeader } from '../../shared/http/token-count-source.ts';
import { thinkingSignature } from '../support/fake-upstream/signed-thinking.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * `/v1/messages` for every model, with the official Anthropic SDKs as they are: 1.x (Bearer) and the 0.x line
 * (`x-api-key`). A chat-only model (a model a chat connection declares, and the K3 catalog model) is translated
 * messages → chat; K2.7, whose upstream speaks messages, is a pass-through under thinking mode's rules.
 */
const fixture = useGatewayFixture({
  connections: [{ provider: 'acme', wire: 'openai-chat', models: ['acme-1'], apiKey: 'chat-secret' }, ...alphaRoutes],
  member: { dailyTokens: 5_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
});

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const textOf = (message: Anthropic.Message) =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

type AnthropicLike = Pick<Anthropic, 'messages' | 'beta'>;

const sdks: [string, () => AnthropicLike][] = [
  ['@anthropic-ai/sdk 1.x', () => anthropicClient(gateway, key)],
  [
    '@anthropic-ai/sdk 0.x',
    () => new LegacyAnthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 }) as unknown as AnthropicLike,
  ],
];

describe.each(sdks)('a chat-only model on /v1/messages with %s', (_name, makeClient) => {
  let client: AnthropicLike;
  beforeAll(() => {
    client = makeClient();
  });

  it('answers a plain request translated to chat: system, stop sequences, metadata, usage with the cache split', async () => {
    const { data, response } = await client.messages
      .create({
        model: 'acme/acme-1',
        max_tokens: 300,
        system: [
          { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Answer in English.' },
        ],
        messages: [{ role: 'user', content: 'hello there' }],
        stop_sequences: ['STOP'],
        metadata: { user_id: 'member-7' },
      })
      .withResponse();
    expect(data).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'acme/acme-1',
      stop_reason: 'end_turn',
      stop_sequence: null,
      // The chat upstream reported 17 prompt tokens, 5 of them cached: the messages form counts them apart.
      usage: { input_tokens: 12, cache_read_input_tokens: 5, output_tokens: 9 },
    });
    expect(data.id).toMatch(/^msg_/);
    expect(textOf(data)).toBe('echo: hello there');

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer chat-secret');
    expect(sent.json).toEqual({
      model: 'acme-1',
      messages: [
        { role: 'system', content: 'You are terse.\n\nAnswer in English.' },
        { role: 'user', content: 'hello there' },
      ],
      max_tokens: 300,
      stop: ['STOP'],
      user: 'member-7',
    });
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ wire: 'anthropic-messages', source: 'measured', inputTokens: 17, outputTokens: 9 });
  });

  it('streams text that messages.stream() assembles, with the usage in message_delta', async () => {
    const stream = client.messages.stream({
      model: 'acme/acme-1',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'stream please' }],
    });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(textOf(message)).toBe('echo: stream please');
    expect(texts.length).toBeGreaterThan(1);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 12, cache_read_input_tokens: 5, output_tokens: 9 });
    expect(upstream.requests[0]?.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('runs a tool loop: tool_use (plain and streamed), then the tool result with is_error and an image', async () => {
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const called = await client.messages.create({
      model: 'acme/acme-1',
      max_tokens: 200,
      messages: [question],
      tools: [weatherTool],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    expect(called.stop_reason).toBe('tool_use');
    const toolUse = called.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ name: 'get_weather', input: { input: 'Weather in Paris?' } });
    expect(upstream.requests[0]?.json).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool.input_schema } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });

    const streamed = await client.messages
      .stream({ model: 'acme/acme-1', max_tokens: 200, messages: [question], tools: [weatherTool] })
      .finalMessage();
    expect(streamed.content.find((block) => block.type === 'tool_use')).toMatchObject({
      type: 'tool_use',
      name: 'get_weather',
      input: { input: 'Weather in Paris?' },
    });

    upstream.nextResponse({ type: 'answer', toolCall: false });
    const answered = await client.messages.create({
      model: 'acme/acme-1',
      max_tokens: 200,
      tools: [weatherTool],
      messages: [
        question,
        { role: 'assistant', content: called.content },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: toolUse!.type === 'tool_use' ? toolUse!.id : '',
              is_error: true,
              content: [
                { type: 'text', text: 'station offline' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } },
              ],
            },
            { type: 'text', text: 'Try again later?' },
          ],
        },
      ],
    });
    expect(answered.stop_reason).toBe('end_turn');
    const callId = toolUse!.type === 'tool_use' ? toolUse!.id : '';
    expect((upstream.requests[2]!.json as { messages: unknown[] }).messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: callId,
            type: 'function',
            function: { name: 'get_weather', arguments: '{"input":"Weather in Paris?"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: callId, content: 'Error: station offline' },
      {
        role: 'user',
        content: [
          { type: 'text', text: `The images tool call ${callId} returned:` },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } },
        ],
      },
      { role: 'user', content: 'Try again later?' },
    ]);
  });

  it('maps forced tool choices to chat, and stop by length to max_tokens', async () => {
    await client.messages.create({
      model: 'acme/acme-1',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Go' }],
      tools: [weatherTool],
      tool_choice: { type: 'tool', name: 'get_weather' },
    });
    await client.messages.create({
      model: 'acme/acme-1',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Go' }],
      tools: [weatherTool],
      tool_choice: { type: 'any' },
    });
    expect(upstream.requests.map((request) => (request.json as { tool_choice: unknown }).tool_choice)).toEqual([
      { type: 'function', function: { name: 'get_weather' } },
      'required',
    ]);
  });

  it('sends an image as a data URL, and returns chat reasoning as a thinking block the next turn sends back', async () => {
    upstream.nextResponse({ type: 'answer', reasoning: 'The picture is one pixel.' });
    const message = await client.messages.create({
      model: 'acme/acme-1',
      max_tokens: 200,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'The picture is one pixel.', signature: '' });
    expect(upstream.requests[0]?.json).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    await client.messages.create({
      model: 'acme/acme-1',
      max_tokens: 200,
      messages: [
        { role: 'user', content: 'What is this?' },
        { role: 'assistant', content: message.content },
        { role: 'user', content: 'Sure?' },
      ],
    });
    expect((upstream.requests[1]!.json as { messages: unknown[] }).messages[1]).toEqual({
      role: 'assistant',
      content: 'echo: What is this?',
      reasoning_content: 'The picture is one pixel.',
    });
  });

  it('refuses what the chat format cannot carry with a 400 in the messages envelope, before calling upstream', async () => {
    const refusals = [
      {
        body: {
          messages: [
            {
              role: 'user' as const,
              content: [
                {
                  type: 'document' as const,
                  source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'a doc' },
                },
              ],
            },
          ],
        },
        code: 'unsupported_content_part',
      },
      { body: { messages: [{ role: 'user' as const, content: 'hi' }], top_k: 5 }, code: 'unsupported_parameter' },
    ];
    for (const { body, code } of refusals) {
      const refused = await client.messages
        .create({ model: 'acme/acme-1', max_tokens: 50, ...body } as Anthropic.MessageCreateParamsNonStreaming)
        .catch((caught: unknown) => caught);
      expect(refused).toMatchObject({ status: 400, error: { type: 'error', error: { code } } });
    }
    const tool = await client.beta.messages
      .create({
        model: 'acme/acme-1',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'bash_20250124', name: 'bash' }],
      })
      .catch((caught: unknown) => caught);
    // A vendor-defined tool runs on the vendor's side: a chat upstream has none, so the translation refuses it.
    expect(tool).toMatchObject({ status: 400, error: { error: { code: 'unsupported_tool' } } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('relays an upstream error in the messages envelope with its status', async () => {
    upstream.nextResponse({ type: 'error', status: 429, message: 'slow down' });
    const refused = await client.messages
      .create({ model: 'acme/acme-1', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ status: 429, error: { type: 'error', error: { message: 'slow down' } } });
  });

  it("counts tokens with the gateway's estimate, saying so, and keeps anthropic-beta from the chat upstream", async () => {
    const { data, response } = await client.beta.messages
      .countTokens({
        model: 'acme/acme-1',
        messages: [{ role: 'user', content: 'How many tokens is this?' }],
        betas: ['token-counting-2024-11-01'],
      })
      .withResponse();
    expect(response.headers.get(tokenCountSourceHeader)).toBe('estimate');
    expect(data.input_tokens).toBeGreaterThan(3);
    await client.beta.messages.create({
      model: 'acme/acme-1',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
      betas: ['interleaved-thinking-2025-05-14'],
    });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.headers['anthropic-beta']).toBeUndefined();
  });

  it('reaches a catalog chat model (K3) with its reasoning effort, and refuses switching its thinking off', async () => {
    const message = await client.messages.create({
      model: 'alpha-k3',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(textOf(message)).toBe('echo: hi');
    expect(upstream.requests[0]).toMatchObject({
      path: '/alpha-chat/v1/chat/completions',
      json: { model: 'k3', reasoning_effort: 'high' },
    });
    const refused = await client.messages
      .create({
        model: 'alpha-k3',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
        thinking: { type: 'disabled' },
      })
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ status: 400, error: { error: { code: 'thinking_required' } } });
  });
});

describe.each(sdks)('K2.7 on /v1/messages, natively, with %s', (_name, makeClient) => {
  let client: AnthropicLike;
  beforeAll(() => {
    client = makeClient();
  });

  it('passes the request through with thinking turned on below max_tokens, and returns the signed thinking', async () => {
    const message = await client.messages.create({
      model: 'alpha/alpha-k2.7-code',
      max_tokens: 4000,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'considering: hello',
      signature: thinkingSignature('considering: hello'),
    });
    expect(textOf(message)).toBe('echo: hello');
    expect(upstream.requests[0]).toMatchObject({
      path: '/alpha-messages/v1/messages',
      json: { model: 'alpha-for-coding', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 } },
    });
  });

  it('streams the signed thinking, which messages.stream() assembles with its signature', async () => {
    const message = await client.messages
      .stream({ model: 'alpha-k2.7-code', max_tokens: 3000, messages: [{ role: 'user', content: 'think' }] })
      .finalMessage();
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'considering: think',
      signature: thinkingSignature('considering: think'),
    });
  });

  it('runs a tool loop whose thinking goes back unchanged, forwarding anthropic-beta; an altered one is refused upstream', async () => {
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Oslo?' };
    const called = await client.beta.messages.create({
      model: 'alpha-k2.7-code',
      max_tokens: 3000,
      messages: [question],
      tools: [weatherTool],
      betas: ['interleaved-thinking-2025-05-14'],
    });
    expect(upstream.requests[0]?.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    const toolUse = called.content.find((block) => block.type === 'tool_use');
    const result = {
      role: 'user' as const,
      content: [
        { type: 'tool_result' as const, tool_use_id: toolUse?.type === 'tool_use' ? toolUse.id : '', content: 'Sunny' },
      ],
    };
    const answered = await client.beta.messages.create({
      model: 'alpha-k2.7-code',
      max_tokens: 3000,
      tools: [weatherTool],
      messages: [question, { role: 'assistant', content: called.content }, result],
    });
    expect(answered.stop_reason).toBe('end_turn');
    expect((upstream.requests[1]!.json as { messages: { content: unknown }[] }).messages[1]?.content).toEqual(
      JSON.parse(JSON.stringify(called.content)),
    );

    const altered = called.content.map((block) =>
      block.type === 'thinking' ? { ...block, thinking: `${block.thinking} (edited)` } : block,
    );
    const refused = await client.beta.messages
      .create({
        model: 'alpha-k2.7-code',
        max_tokens: 3000,
        tools: [weatherTool],
        messages: [question, { role: 'assistant', content: altered }, result],
      })
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ status: 400 });
    expect(String((refused as Error).message)).toContain('Invalid `signature`');
  });

  it("applies thinking mode's rules before anything is sent: thinking off and forced tool use are refused", async () => {
    const base = { model: 'alpha-k2.7-code', max_tokens: 3000, messages: [{ role: 'user' as const, content: 'hi' }] };
    const cases: [Partial<Anthropic.MessageCreateParamsNonStreaming>, string][] = [
      [{ thinking: { type: 'disabled' } }, 'thinking_required'],
      [{ tools: [weatherTool], tool_choice: { type: 'any' } }, 'forced_tool_choice_unsupported'],
      [{ tools: [weatherTool], tool_choice: { type: 'tool', name: 'get_weather' } }, 'forced_tool_choice_unsupported'],
      [{ thinking: { type: 'enabled', budget_tokens: 3000 } }, 'invalid_thinking_budget'],
    ];
    for (const [extra, code] of cases) {
      const refused = await client.messages.create({ ...base, ...extra }).catch((caught: unknown) => caught);
      expect(refused).toMatchObject({ status: 400, error: { type: 'error', error: { code } } });
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it("counts tokens with the upstream's own count, forwarding anthropic-beta", async () => {
    const { data, response } = await client.beta.messages
      .countTokens({
        model: 'alpha-k2.7-code',
        messages: [{ role: 'user', content: 'count me' }],
        betas: ['context-1m-2025-08-07'],
      })
      .withResponse();
    expect(response.headers.get(tokenCountSourceHeader)).toBe('upstream');
    expect(data.input_tokens).toBe(17);
    expect(upstream.requests[0]).toMatchObject({
      path: '/alpha-messages/v1/messages/count_tokens',
      // The SDK adds its own token-counting flag to the one asked for; both reach the upstream.
      headers: { 'anthropic-beta': expect.stringContaining('context-1m-2025-08-07') },
    });
  });
});
