import { describe, expect, it } from 'vitest';
import { parseSseText, readTextFixture } from '../../support/sse-fixtures.ts';
import {
  chatChunk,
  chatEvent,
  chatToResponses,
  fixtures,
  type ResponsesEventView,
  responsesEvents,
  translateEvents,
  translateFixture,
  translateMessagesFixture,
  typesOf,
} from './translate-fixture.ts';

const textOf = (events: readonly ResponsesEventView[]) =>
  events
    .filter((event) => event.type === 'response.output_text.delta')
    .map((event) => event.delta)
    .join('');

const last = (events: readonly ResponsesEventView[]): ResponsesEventView => {
  const event = events.at(-1);
  if (!event) throw new Error('the stream sent no events');
  return event;
};

describe('createChatToResponsesTransformer', () => {
  it('translates a text stream into the vendor event order, numbered from 0 without gaps', async () => {
    const events = responsesEvents(await translateFixture('text-stream.sse'));
    expect(typesOf(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, position) => position));
    expect(events[0]).toMatchObject({
      response: { id: 'resp_req-1', object: 'response', status: 'in_progress', model: 'alpha/alpha-k3', output: [] },
    });
    expect(events[2]).toMatchObject({
      output_index: 0,
      item: { type: 'message', id: 'msg_req-1_0', role: 'assistant', status: 'in_progress', content: [] },
    });
    expect(events[4]).toMatchObject({ item_id: 'msg_req-1_0', output_index: 0, content_index: 0, delta: 'Hello' });
    expect(textOf(events)).toBe('Hello! How can I help you today?');
    expect(events[7]).toMatchObject({ text: 'Hello! How can I help you today?' });
  });

  it('carries the whole response with the usage of the chat usage chunk on response.completed', async () => {
    const events = responsesEvents(await translateFixture('text-stream.sse'));
    expect(last(events).response).toMatchObject({
      status: 'completed',
      incomplete_details: null,
      error: null,
      output: [
        {
          type: 'message',
          id: 'msg_req-1_0',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello! How can I help you today?', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 19,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 31,
        output_tokens_details: { reasoning_tokens: 21 },
        total_tokens: 50,
      },
    });
  });

  it('keeps reasoning_content out of the output', async () => {
    const text = await translateFixture('text-stream.sse');
    expect(text).not.toContain('greets');
    expect(text).not.toContain('reasoning_content');
  });

  it('closes the message before the first call, then streams each call as a function_call item', async () => {
    const events = responsesEvents(await translateFixture('tool-calls-stream.sse'));
    expect(typesOf(events).slice(2)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[9]).toMatchObject({
      output_index: 1,
      item: {
        type: 'function_call',
        id: 'fc_req-1_1',
        call_id: 'call_Wq8mT2xR4vKe',
        name: 'get_weather',
        arguments: '',
        status: 'in_progress',
      },
    });
    expect(events[14]).toMatchObject({
      item_id: 'fc_req-1_1',
      output_index: 1,
      name: 'get_weather',
      arguments: '{"location": "Paris, France"}',
    });
    expect(last(events).response).toMatchObject({
      status: 'completed',
      output: [
        { type: 'message', content: [{ text: 'Let me check both cities.' }] },
        { type: 'function_call', call_id: 'call_Wq8mT2xR4vKe', arguments: '{"location": "Paris, France"}' },
        { type: 'function_call', call_id: 'call_Jd3nP9sL1cYa', arguments: '{"location": "Tokyo, Japan"}' },
      ],
      usage: {
        input_tokens: 2186,
        input_tokens_details: { cached_tokens: 2048 },
        output_tokens: 164,
        output_tokens_details: { reasoning_tokens: 12 },
      },
    });
  });

  it('assembles the fragments of parallel calls that an engine interleaves by index, blank arguments as {}', () => {
    const call = (index: number, fields: Record<string, unknown>) => chatChunk({ tool_calls: [{ index, ...fields }] });
    const events = responsesEvents(
      translateEvents([
        call(0, { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"location":' } }),
        call(1, { id: 'call_b', type: 'function', function: { name: 'list_open_files', arguments: '' } }),
        call(0, { function: { arguments: ' "Oslo"}' } }),
        chatChunk({}, 'tool_calls'),
        chatEvent('[DONE]'),
      ]),
    );
    expect(last(events).response).toMatchObject({
      output: [
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"location": "Oslo"}' },
        { type: 'function_call', call_id: 'call_b', name: 'list_open_files', arguments: '{}' },
      ],
    });
  });

  it('ends a stream stopped by length with response.incomplete for max_output_tokens', async () => {
    const events = responsesEvents(await translateFixture('length-stream.sse'));
    expect(textOf(events)).toBe('The sea rolls in with silver light,\nIt');
    expect(events.find((event) => event.type === 'response.output_item.done')).toMatchObject({
      item: { status: 'incomplete' },
    });
    expect(last(events)).toMatchObject({
      type: 'response.incomplete',
      response: {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        usage: { input_tokens: 12, output_tokens: 16, total_tokens: 28 },
      },
    });
  });

  it('turns an upstream error event into a flat error event and response.failed, and sends nothing after', async () => {
    const transform = chatToResponses();
    let text = '';
    for (const event of parseSseText(await readTextFixture(fixtures, 'error-mid-stream.sse'))) {
      text += transform.push(event);
    }
    expect(transform.push(chatChunk({ content: 'late' }))).toBe('');
    expect(transform.end()).toBe('');
    const events = responsesEvents(text);
    expect(textOf(events)).toBe('Here is the first part of');
    expect(typesOf(events).slice(-2)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)).toEqual({
      type: 'error',
      code: 'engine_overloaded',
      message: 'The engine is currently overloaded, please try again later',
      param: null,
      sequence_number: events.length - 2,
    });
    expect(last(events).response).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: 'The engine is currently overloaded, please try again later' },
      output: [{ type: 'message', status: 'incomplete', content: [{ text: 'Here is the first part of' }] }],
    });
  });

  it('opens the response before an error that is the first event, as clients expect response.created first', () => {
    const events = responsesEvents(
      translateEvents([chatEvent({ error: { message: 'Rate limited', type: 'rate_limit_error', code: 429 } })]),
    );
    expect(typesOf(events)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(events[2]).toMatchObject({ code: '429', message: 'Rate limited' });
  });

  it('reports a stream that ended before any finish reason as failed', () => {
    const events = responsesEvents(translateEvents([chatChunk({ role: 'assistant', content: 'Half' })]));
    expect(typesOf(events).slice(-2)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)).toMatchObject({ code: 'upstream_stream_incomplete' });
  });

  it('completes a stream whose engine sent a finish reason but no [DONE]', () => {
    const events = responsesEvents(translateEvents([chatChunk({ content: 'Hi' }), chatChunk({}, 'stop')]));
    expect(last(events)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    expect(last(events).response).not.toHaveProperty('usage');
  });

  it('completes an empty answer with no output items', () => {
    const events = responsesEvents(translateEvents([chatChunk({ role: 'assistant' }, 'stop'), chatEvent('[DONE]')]));
    expect(typesOf(events)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
  });

  it('skips events that are not chat chunks, and other choices', () => {
    const transform = chatToResponses();
    expect(transform.push(chatEvent('not json'))).toBe('');
    expect(transform.push(chatEvent({ choices: 'nope' }))).toBe('');
    const other = chatEvent({ choices: [{ index: 1, delta: { content: 'second choice' }, finish_reason: null }] });
    expect(textOf(responsesEvents(transform.push(other)))).toBe('');
  });

  it('translates a messages stream after the chat-to-messages hop (K2.7 route)', async () => {
    const events = responsesEvents(await translateMessagesFixture('thinking-then-text-stream.sse'));
    expect(textOf(events)).toBe('27 × 453 = 12,231');
    expect(JSON.stringify(events)).not.toContain('27 * 400');
    // 14 uncached + 248 cache writes + 2764 cache reads.
    expect(last(events)).toMatchObject({
      type: 'response.completed',
      response: { usage: { input_tokens: 3026, input_tokens_details: { cached_tokens: 2764 }, output_tokens: 57 } },
    });
  });
});
