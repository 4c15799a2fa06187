import { describe, expect, it } from 'vitest';
import { runTransformer } from '../../../shared/streams/event-transformer.ts';
import { createChatToResponsesTransformer } from '../../../shared/translation/responses-to-chat/chat-to-responses-stream.ts';
import { decodeReasoningState } from '../../../shared/translation/responses-to-chat/reasoning-state.ts';
import type { ResponsesStreamEventOut } from '../../../shared/wires/openai-responses/openai-responses-stream-event.ts';
import { parseSseText, readTextFixture } from '../../support/sse-fixtures.ts';
import {
  chatChunk,
  chatEvent,
  chatToResponses,
  fixtures,
  identity,
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
  it.each(['text-stream.sse', 'tool-calls-stream.sse', 'length-stream.sse', 'error-mid-stream.sse'])(
    'translates %s the same however the network split its bytes',
    async (name) => {
      const whole = await translateFixture(name, {}, Number.MAX_SAFE_INTEGER);
      for (const chunkSize of [1, 2, 3, 5, 7, 64]) expect(await translateFixture(name, {}, chunkSize)).toBe(whole);
    },
  );

  it('translates a text stream into the vendor event order, numbered from 0 without gaps', async () => {
    const events = responsesEvents(await translateFixture('text-stream.sse'));
    expect(typesOf(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
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
      item: { type: 'reasoning', id: 'rs_req-1_0', status: 'in_progress', summary: [], content: [] },
    });
    expect(events[9]).toMatchObject({
      output_index: 1,
      item: { type: 'message', id: 'msg_req-1_1', role: 'assistant', status: 'in_progress', content: [] },
    });
    expect(events[11]).toMatchObject({ item_id: 'msg_req-1_1', output_index: 1, content_index: 0, delta: 'Hello' });
    expect(textOf(events)).toBe('Hello! How can I help you today?');
    expect(events[14]).toMatchObject({ text: 'Hello! How can I help you today?' });
  });

  it('carries the whole response with the usage of the chat usage chunk on response.completed', async () => {
    const events = responsesEvents(await translateFixture('text-stream.sse'));
    expect(last(events).response).toMatchObject({
      status: 'completed',
      incomplete_details: null,
      error: null,
      output: [
        {
          type: 'reasoning',
          id: 'rs_req-1_0',
          status: 'completed',
          summary: [],
          content: [{ type: 'reasoning_text', text: 'The user greets me. Reply briefly.' }],
        },
        {
          type: 'message',
          id: 'msg_req-1_1',
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

  it('streams reasoning as a summary when the client asked for one, with its state when included', async () => {
    const form = { customToolNames: new Set<string>(), reasoningAs: 'summary' as const, encryptedReasoning: true };
    const events = responsesEvents(await translateFixture('text-stream.sse', { form }));
    expect(typesOf(events).slice(2, 9)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    expect(events[4]).toMatchObject({ item_id: 'rs_req-1_0', summary_index: 0, delta: 'The user greets me.' });
    const item = events[8]?.item as { summary: unknown; content?: unknown; encrypted_content: string };
    expect(item.summary).toEqual([{ type: 'summary_text', text: 'The user greets me. Reply briefly.' }]);
    expect(item).not.toHaveProperty('content');
    expect(decodeReasoningState(item.encrypted_content)).toEqual({ text: 'The user greets me. Reply briefly.' });
  });

  it('closes the message before the first call, then streams each call as a function_call item', async () => {
    const events = responsesEvents(await translateFixture('tool-calls-stream.sse'));
    const fromMessage = typesOf(events).indexOf('response.content_part.added', 5) - 1;
    expect(typesOf(events).slice(fromMessage)).toEqual([
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
    const firstCall = events[fromMessage + 7];
    expect(firstCall).toMatchObject({
      output_index: 2,
      item: {
        type: 'function_call',
        id: 'fc_req-1_2',
        call_id: 'call_Wq8mT2xR4vKe',
        name: 'get_weather',
        arguments: '',
        status: 'in_progress',
      },
    });
    expect(events[fromMessage + 12]).toMatchObject({
      item_id: 'fc_req-1_2',
      output_index: 2,
      name: 'get_weather',
      arguments: '{"location": "Paris, France"}',
    });
    expect(last(events).response).toMatchObject({
      status: 'completed',
      output: [
        { type: 'reasoning' },
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

  it("gives a custom tool's call its input whole when it closes, out of the JSON it travelled in", () => {
    const form = {
      customToolNames: new Set(['apply_patch']),
      reasoningAs: 'content' as const,
      encryptedReasoning: false,
    };
    const patch = '*** Begin Patch\n*** End Patch';
    const argumentText = JSON.stringify({ input: patch });
    const events = responsesEvents(
      translateEvents(
        [
          chatChunk({
            tool_calls: [
              {
                index: 0,
                id: 'call_p',
                type: 'function',
                function: { name: 'apply_patch', arguments: argumentText.slice(0, 9) },
              },
            ],
          }),
          chatChunk({ tool_calls: [{ index: 0, function: { arguments: argumentText.slice(9) } }] }),
          chatChunk({}, 'tool_calls'),
          chatEvent('[DONE]'),
        ],
        { form },
      ),
    );
    expect(typesOf(events).slice(2)).toEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]).toMatchObject({ item: { type: 'custom_tool_call', id: 'ctc_req-1_0', input: '' } });
    expect(events[3]).toMatchObject({ delta: patch });
    expect(events[5]).toMatchObject({
      item: { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: patch, status: 'completed' },
    });
  });

  it('streams a refusal into a refusal part of its own', () => {
    const events = responsesEvents(
      translateEvents([
        chatChunk({ content: 'Sorry. ' }),
        chatChunk({ refusal: 'I cannot help' }),
        chatChunk({ refusal: ' with that.' }),
        chatChunk({}, 'stop'),
        chatEvent('[DONE]'),
      ]),
    );
    expect(typesOf(events)).toContain('response.refusal.delta');
    expect(events.find((event) => event.type === 'response.refusal.done')).toMatchObject({
      content_index: 1,
      refusal: 'I cannot help with that.',
    });
    expect(last(events).response).toMatchObject({
      output: [
        {
          type: 'message',
          content: [
            { type: 'output_text', text: 'Sorry. ' },
            { type: 'refusal', refusal: 'I cannot help with that.' },
          ],
        },
      ],
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
      output: expect.arrayContaining([
        {
          type: 'message',
          id: expect.any(String),
          role: 'assistant',
          status: 'incomplete',
          content: [expect.objectContaining({ text: 'Here is the first part of' })],
        },
      ]),
    });
  });

  it("ends the stream in the gateway's own failure with a numbered error event and response.failed", () => {
    const events: ResponsesStreamEventOut[] = [];
    const run = runTransformer(createChatToResponsesTransformer(identity), (event) => events.push(event));
    run.push({ type: 'chunk', chunk: { choices: [{ index: 0, delta: { content: 'Half an' } }] } });
    run.fail({ code: 'upstream_interrupted', message: 'The upstream stream was interrupted.' });
    run.fail({ code: 'upstream_timeout', message: 'again' });
    expect(events.map((event) => event.type).slice(-2)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)).toEqual({
      type: 'error',
      code: 'upstream_interrupted',
      message: 'The upstream stream was interrupted.',
      param: null,
      sequence_number: events.length - 2,
    });
    expect(events.at(-1)).toMatchObject({
      response: {
        status: 'failed',
        output: [{ type: 'message', status: 'incomplete', content: [{ text: 'Half an' }] }],
      },
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

  it('translates a messages stream after the chat-to-messages hop (K2.7 route), thinking as reasoning', async () => {
    const events = responsesEvents(await translateMessagesFixture('thinking-then-text-stream.sse'));
    expect(textOf(events)).toBe('27 × 453 = 12,231');
    expect(last(events).response).toMatchObject({
      output: [
        { type: 'reasoning', content: [{ type: 'reasoning_text', text: expect.stringContaining('27 * 400') }] },
        { type: 'message' },
      ],
    });
    // 14 uncached + 248 cache writes + 2764 cache reads.
    expect(last(events)).toMatchObject({
      type: 'response.completed',
      response: { usage: { input_tokens: 3026, input_tokens_details: { cached_tokens: 2764 }, output_tokens: 57 } },
    });
  });
});
