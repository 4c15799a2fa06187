import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { refusal } from '../support/openai-refusal.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * `/v1/responses` on a connection that speaks chat only (any OpenAI-compatible engine), through the Responses → chat
 * hop, driven by the official openai SDK: what the SDK gets back, and what the chat upstream received.
 */
const fixture = useGatewayFixture({
  connections: [{ provider: 'acme', wire: 'openai-chat', models: ['acme-1'], apiKey: 'engine-secret' }],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  client = openaiClient(gateway, fixture.member.key);
});

const model = 'acme/acme-1';
const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

interface ChatSent {
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  [field: string]: unknown;
}
const sent = (index: number) => upstream.requests[index]?.json as ChatSent;

describe('the openai SDK on /v1/responses through a chat-only connection', () => {
  it('answers string input, with usage, settled as measured, the chat upstream asked in its own form', async () => {
    const { data, response } = await client.responses
      .create({ model, input: 'hello there', instructions: 'be brief', max_output_tokens: 300 })
      .withResponse();
    expect(data).toMatchObject({ object: 'response', status: 'completed', model, store: false });
    expect(data.output_text).toBe('echo: hello there');
    expect(data.usage).toMatchObject({
      input_tokens: 17,
      output_tokens: 9,
      input_tokens_details: { cached_tokens: 5 },
    });
    expect(upstream.requests[0]?.path).toBe('/v1/chat/completions');
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer engine-secret');
    expect(sent(0)).toEqual({
      model: 'acme-1',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
      max_tokens: 300,
    });
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ wire: 'openai-responses', source: 'measured', inputTokens: 17, outputTokens: 9 });
  });

  it('carries message items of every role, with images, as chat messages', async () => {
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    await client.responses.create({
      model,
      input: [
        { role: 'developer', content: 'Answer in English.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: image, detail: 'auto' },
          ],
        },
        { role: 'assistant', content: 'A pixel.' },
        { role: 'user', content: 'Sure?' },
      ],
    });
    expect(sent(0).messages).toEqual([
      { role: 'system', content: 'Answer in English.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: image, detail: 'auto' } },
        ],
      },
      { role: 'assistant', content: 'A pixel.' },
      { role: 'user', content: 'Sure?' },
    ]);
  });

  it('runs a function tool loop: the call, then its output sent back with the prior items', async () => {
    const first = await client.responses.create({
      model,
      input: 'weather in Oslo?',
      tools: [weatherTool],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call in the answer');
    expect(call).toMatchObject({ name: 'get_weather', call_id: 'call_fake_0', status: 'completed' });
    expect(JSON.parse(call.arguments)).toEqual({ input: 'weather in Oslo?' });
    expect(sent(0)).toMatchObject({
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: weatherTool.parameters, strict: false } },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });

    const followUp: ResponseInputItem[] = [
      { role: 'user', content: 'weather in Oslo?' },
      ...(first.output as ResponseInputItem[]),
      { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21°C' },
    ];
    const second = await client.responses.create({ model, input: followUp, tools: [weatherTool] });
    expect(second.output_text).toBe('echo: sunny, 21°C');
    expect(sent(1).messages).toEqual([
      { role: 'user', content: 'weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_fake_0', type: 'function', function: { name: 'get_weather', arguments: call.arguments } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_fake_0', content: 'sunny, 21°C' },
    ]);
  });

  it('sends text.format json_schema as response_format, and reasoning.effort as reasoning_effort', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    };
    upstream.nextResponse({ type: 'answer', text: '{"city":"Oslo"}' });
    const answer = await client.responses.create({
      model,
      input: 'Which city?',
      text: { format: { type: 'json_schema', name: 'city', schema, strict: true } },
      reasoning: { effort: 'low' },
    });
    expect(JSON.parse(answer.output_text)).toEqual({ city: 'Oslo' });
    expect(sent(0)).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
      reasoning_effort: 'low',
    });
    expect(answer.reasoning).toEqual({ effort: 'low', summary: null });
  });

  it('returns the reasoning of a reasoning model as a reasoning item', async () => {
    upstream.nextResponse({ type: 'answer', reasoning: 'The user says hi.' });
    const answer = await client.responses.create({ model, input: 'hi' });
    expect(answer.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(answer.output[0]).toMatchObject({ content: [{ type: 'reasoning_text', text: 'The user says hi.' }] });
    expect(answer.output_text).toBe('echo: hi');
  });

  it('streams the whole event sequence, which the stream helper assembles, and settles from response.completed', async () => {
    upstream.nextResponse({
      type: 'answer',
      reasoning: 'Counting words.',
      usage: { inputTokens: 40, cachedInputTokens: 32, outputTokens: 7 },
    });
    const stream = client.responses.stream({ model, input: 'stream this please', reasoning: { summary: 'auto' } });
    const events: ResponseStreamEvent[] = [];
    stream.on('event', (event) => events.push(event));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('echo: stream this please');
    expect(final.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Counting words.' }],
    });
    expect(final.usage).toMatchObject({
      input_tokens: 40,
      input_tokens_details: { cached_tokens: 32 },
      output_tokens: 7,
    });
    const types = events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added']);
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, position) => position));
    expect(sent(0)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams a function call that the helper assembles, and ends a cut answer as incomplete', async () => {
    const streamed = await client.responses
      .stream({ model, input: 'weather in Bergen?', tools: [weatherTool] })
      .finalResponse();
    const call = streamed.output.find((item) => item.type === 'function_call');
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ input: 'weather in Bergen?' });

    upstream.nextResponse({
      type: 'answer',
      streamError: { afterChunks: 3, status: 500, message: 'engine fell over' },
    });
    const events: ResponseStreamEvent[] = [];
    const raw = await client.responses.create({ model, input: 'a b c d e', stream: true });
    for await (const event of raw) events.push(event);
    expect(events.map((event) => event.type).slice(-2)).toEqual(['error', 'response.failed']);
    expect(events.at(-1)).toMatchObject({ response: { status: 'failed', error: { message: 'engine fell over' } } });
  });
});

describe('server-held state on a translated route', () => {
  it('refuses store: true, previous_response_id, conversation and background with stored_state_unsupported; store: false works', async () => {
    // A member without a daily allowance: a finite one refuses stored references before translation, as ever.
    const unlimited = new OpenAI({
      apiKey: (await gateway.admin.createMemberWithKey()).key,
      baseURL: gateway.baseURL,
      maxRetries: 0,
    });
    const states = [
      { store: true },
      { previous_response_id: 'resp_1' },
      { conversation: 'conv_1' },
      { background: true },
    ];
    for (const state of states) {
      expect(await refusal(unlimited.responses.create({ model, input: 'x', ...state } as never))).toEqual({
        status: 400,
        code: 'stored_state_unsupported',
      });
    }
    expect(await refusal(client.responses.create({ model, input: 'x', previous_response_id: 'resp_1' }))).toEqual({
      status: 400,
      code: 'stored_reference_refused',
    });
    expect(upstream.requests).toHaveLength(0);
    const answer = await unlimited.responses.create({ model, input: 'x', store: false });
    expect(answer).toMatchObject({ status: 'completed', store: false });
  });

  it('answers the stored-response endpoints with 404 response_not_stored in the OpenAI envelope', async () => {
    // Each call starts only when the one before it has been refused, so none is left unawaited.
    for (const call of [
      () => client.responses.retrieve('resp_abc'),
      () => client.responses.delete('resp_abc'),
      () => client.responses.inputItems.list('resp_abc'),
      () => client.responses.cancel('resp_abc'),
    ]) {
      expect(await refusal(call())).toEqual({ status: 404, code: 'response_not_stored' });
    }
    const prefixed = await fetch(`${gateway.url}/lb/v1/responses/resp_abc`, {
      headers: { authorization: `Bearer ${fixture.member.key}` },
    });
    expect(prefixed.status).toBe(404);
    expect(await prefixed.json()).toMatchObject({ error: { code: 'response_not_stored', type: 'not_found_error' } });
  });
});
