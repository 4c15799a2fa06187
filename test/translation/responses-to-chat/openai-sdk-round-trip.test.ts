import type { ResponseStreamEvent, Response as SdkResponse } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { convertChatCompletionToResponse } from '../../../shared/translation/responses-to-chat/convert-from-chat-completion.ts';
import { parseChatAnswer } from '../../../shared/wires/openai-chat/openai-chat-answer.ts';
import type { ResponsesResponse } from '../../../shared/wires/openai-responses/openai-responses-response.ts';
import { clientAnswering, sseResponse } from '../../support/openai-client-answering.ts';
import { readJsonFixture } from '../../support/sse-fixtures.ts';
import { fixtures, identity, translateFixture, translateMessagesFixture } from './translate-fixture.ts';

/**
 * The translator's answer must fit the SDK's own `Response` type, bar what the SDK adds itself (`output_text`)
 * and `reasoning`, whose effort is the catalog's (`max` is not on the vendor's list).
 */
type SdkResponseFields = Omit<SdkResponse, 'output_text' | 'reasoning'>;
const fitsSdkType = (response: ResponsesResponse): SdkResponseFields => response;

const params = { model: identity.model, input: 'Hello', max_output_tokens: 512 };

/** Raw stream events carry the response as sent, without the `output_text` the SDK adds to what it assembles. */
const outputTextOf = (response: SdkResponse) =>
  response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('translated Responses streams through the official openai SDK', () => {
  it('iterates a streamed create: text deltas, then response.completed with usage', async () => {
    const sse = await translateFixture('text-stream.sse');
    const stream = await clientAnswering(() => sseResponse(sse)).responses.create({ ...params, stream: true });
    const events = await collect(stream);
    const text = events.map((event) => (event.type === 'response.output_text.delta' ? event.delta : '')).join('');
    expect(text).toBe('Hello! How can I help you today?');
    const completed = events.at(-1);
    if (completed?.type !== 'response.completed') throw new Error(`ended with ${completed?.type}`);
    expect(outputTextOf(completed.response)).toBe('Hello! How can I help you today?');
    expect(completed.response.usage).toEqual({
      input_tokens: 19,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 31,
      output_tokens_details: { reasoning_tokens: 21 },
      total_tokens: 50,
    });
  });

  it("assembles the answer with the SDK's stream helper, snapshot by snapshot", async () => {
    const sse = await translateFixture('text-stream.sse');
    const snapshots: string[] = [];
    const response = await clientAnswering(() => sseResponse(sse))
      .responses.stream(params)
      .on('response.output_text.delta', (event) => snapshots.push(event.snapshot))
      .finalResponse();
    expect(response.output_text).toBe('Hello! How can I help you today?');
    expect(response.status).toBe('completed');
    expect(response.usage?.total_tokens).toBe(50);
    expect(snapshots).toEqual(['Hello', 'Hello! How can I', 'Hello! How can I help you today?']);
  });

  it('assembles text and two function calls with the stream helper', async () => {
    const sse = await translateFixture('tool-calls-stream.sse');
    const finished: string[] = [];
    const response = await clientAnswering(() => sseResponse(sse))
      .responses.stream({
        ...params,
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: false }],
      })
      .on('response.function_call_arguments.done', (event) => finished.push(`${event.output_index}:${event.name}`))
      .finalResponse();
    expect(response.output_text).toBe('Let me check both cities.');
    const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    expect(calls.map((call) => [call.call_id, call.name, JSON.parse(call.arguments)])).toEqual([
      ['call_Wq8mT2xR4vKe', 'get_weather', { location: 'Paris, France' }],
      ['call_Jd3nP9sL1cYa', 'get_weather', { location: 'Tokyo, Japan' }],
    ]);
    expect(finished).toEqual(['2:get_weather', '3:get_weather']);
    expect(response.output[0]).toMatchObject({ type: 'reasoning', content: [{ type: 'reasoning_text' }] });
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(2048);
  });

  it('ends a stream cut by max_output_tokens as an incomplete response with the text so far', async () => {
    const sse = await translateFixture('length-stream.sse');
    const response = await clientAnswering(() => sseResponse(sse))
      .responses.stream(params)
      .finalResponse();
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details?.reason).toBe('max_output_tokens');
    expect(response.output_text).toBe('The sea rolls in with silver light,\nIt');
  });

  it('fails the stream helper with the upstream message when the stream fails midway', async () => {
    const sse = await translateFixture('error-mid-stream.sse');
    const failure = await clientAnswering(() => sseResponse(sse))
      .responses.stream(params)
      .finalResponse()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toMatchObject({
      type: 'error',
      code: 'engine_overloaded',
      message: expect.stringContaining('overloaded'),
    });
  });

  it('lets an iterating client see the error event, then the failed response with the partial output', async () => {
    const sse = await translateFixture('error-mid-stream.sse');
    const stream = await clientAnswering(() => sseResponse(sse)).responses.create({ ...params, stream: true });
    const events = await collect(stream);
    expect(events.map((event) => event.type).slice(-2)).toEqual(['error', 'response.failed']);
    const failed = events.at(-1);
    if (failed?.type !== 'response.failed') throw new Error(`ended with ${failed?.type}`);
    expect(failed.response.status).toBe('failed');
    expect(failed.response.error?.message).toContain('overloaded');
    expect(outputTextOf(failed.response)).toBe('Here is the first part of');
  });

  it('assembles a K2.7 answer translated twice (messages → chat → Responses), tool calls included', async () => {
    const sse = await translateMessagesFixture('parallel-tool-calls-stream.sse');
    const response = await clientAnswering(() => sseResponse(sse))
      .responses.stream(params)
      .finalResponse();
    const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['get_weather', { location: 'Tokyo' }],
      ['get_time', { timezone: 'Asia/Tokyo' }],
      ['list_open_files', {}],
    ]);
    expect(response.usage).toMatchObject({ input_tokens: 2186, output_tokens: 164, total_tokens: 2350 });
  });
});

describe('translated plain Responses answers through the official openai SDK', () => {
  it('parses the answer: output_text and usage', async () => {
    const body = fitsSdkType(
      convertChatCompletionToResponse(
        parseChatAnswer(await readJsonFixture(fixtures, 'completion-text.json')),
        identity,
      ),
    );
    const response = await clientAnswering(() => Response.json(body)).responses.create(params);
    expect(response.output_text).toBe('Hi! My name is Alpha.');
    expect(response.id).toBe('resp_req-1');
    expect(response.usage).toMatchObject({ input_tokens: 2095, output_tokens: 503, total_tokens: 2598 });
  });

  it('parses function calls, whose arguments parse as JSON', async () => {
    const body = convertChatCompletionToResponse(
      parseChatAnswer(await readJsonFixture(fixtures, 'completion-tool-calls.json')),
      identity,
    );
    const response = await clientAnswering(() => Response.json(body)).responses.create(params);
    expect(response.output_text).toBe('');
    const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([
      { location: 'Paris, France', unit: 'celsius' },
      { location: 'Tokyo, Japan', unit: 'celsius' },
    ]);
  });
});
