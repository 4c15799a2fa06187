import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { chatToMessages, messagesEvents, translateFixture } from './translate-fixture.ts';

const typesOf = (text: string) => messagesEvents(text).map(({ data }) => data.type);

/**
 * What the official SDK assembles from the translated stream: its own `MessageStream` fed the SSE text as the
 * gateway would answer it, so the test reads the message a client ends up with.
 */
async function assembled(sseText: string): Promise<Anthropic.Message> {
  const response = new Response(sseText, { headers: { 'content-type': 'text/event-stream' } });
  const client = new Anthropic({ apiKey: 'unused', fetch: async () => response, maxRetries: 0 });
  return client.messages.stream({ model: 'acme/acme-1', max_tokens: 10, messages: [] }).finalMessage();
}

describe('createChatToMessagesTransformer', () => {
  it.each([
    'text-stream.sse',
    'reasoning-tool-calls-stream.sse',
    'interleaved-tool-calls-stream.sse',
    'length-stream.sse',
    'error-mid-stream.sse',
  ])('translates %s the same however the network split its bytes', async (name) => {
    const whole = await translateFixture(name, Number.MAX_SAFE_INTEGER);
    for (const chunkSize of [1, 2, 3, 5, 7, 64]) expect(await translateFixture(name, chunkSize)).toBe(whole);
  });

  it('streams text as the vendor does: start, one text block, the stop reason and usage, stop', async () => {
    const text = await translateFixture('text-stream.sse');
    expect(typesOf(text)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    // Each event is named by its type, as the vendor names them.
    expect(messagesEvents(text).every(({ event, data }) => event === data.type)).toBe(true);
    expect(messagesEvents(text)[0]?.data).toEqual({
      type: 'message_start',
      message: {
        id: 'msg_req-1',
        type: 'message',
        role: 'assistant',
        model: 'acme/acme-1',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: null },
      },
    });
    expect(messagesEvents(text).at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      // 1532 prompt tokens, 1024 of them cached: the messages form counts cache reads apart.
      usage: { input_tokens: 508, output_tokens: 48, cache_creation_input_tokens: null, cache_read_input_tokens: 1024 },
    });
    const message = await assembled(text);
    expect(message.content).toEqual([{ type: 'text', text: 'Bonjour ! Il fait beau à Paris — 21 °C.' }]);
    expect(message.usage).toMatchObject({ input_tokens: 508, output_tokens: 48, cache_read_input_tokens: 1024 });
  });

  it('streams reasoning as a thinking block, then text, then each tool call as its own tool_use block', async () => {
    const text = await translateFixture('reasoning-tool-calls-stream.sse');
    const starts = messagesEvents(text)
      .filter(({ data }) => data.type === 'content_block_start')
      .map(({ data }) => [data.index, data.content_block]);
    expect(starts).toEqual([
      [0, { type: 'thinking', thinking: '', signature: '' }],
      [1, { type: 'text', text: '' }],
      [2, { type: 'tool_use', id: 'call_Paris01', name: 'get_weather', input: {} }],
      [3, { type: 'tool_use', id: 'call_Tokyo02', name: 'get_weather', input: {} }],
      [4, { type: 'tool_use', id: 'call_Files03', name: 'list_files', input: {} }],
    ]);
    const message = await assembled(text);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Two cities, so two calls.', signature: '' },
      { type: 'text', text: 'Checking both.' },
      { type: 'tool_use', id: 'call_Paris01', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_Tokyo02', name: 'get_weather', input: { city: 'Tokyo' } },
      // A call without arguments streams no fragment; the SDK still gets an input object.
      { type: 'tool_use', id: 'call_Files03', name: 'list_files', input: {} },
    ]);
    // Every block is closed before the next opens, and before the message ends.
    const events = messagesEvents(text).map(({ data }) => [data.type, data.index]);
    expect(events.filter(([type]) => type === 'content_block_stop').map(([, index]) => index)).toEqual([0, 1, 2, 3, 4]);
  });

  it('holds back a parallel call whose fragments interleave with the open one, so each block streams whole in turn', async () => {
    const text = await translateFixture('interleaved-tool-calls-stream.sse');
    // The format's promise: every delta belongs to the block opened last and not yet stopped.
    let openIndex: unknown;
    for (const { data } of messagesEvents(text)) {
      if (data.type === 'content_block_start') openIndex = data.index;
      if (data.type === 'content_block_delta') expect(data.index).toBe(openIndex);
      if (data.type === 'content_block_stop') openIndex = undefined;
    }
    const calls = [
      { type: 'tool_use', id: 'call_Oslo01', name: 'get_weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'call_Rome02', name: 'get_weather', input: { city: 'Rome' } },
      { type: 'tool_use', id: 'call_Time03', name: 'get_time', input: { zone: 'CET' } },
    ];
    expect((await assembled(text)).content).toEqual(calls);
    // The AI SDK takes a call's input when its block stops: a fragment written after that would be lost.
    const provider = createAnthropic({
      apiKey: 'unused',
      fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const result = streamText({ model: provider('acme/acme-1'), prompt: 'weather?' });
    const toolCalls = await result.toolCalls;
    expect(toolCalls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual(
      calls.map((call) => [call.id, call.name, call.input]),
    );
  });

  it('ends a stream stopped by length with max_tokens, also without [DONE]', async () => {
    const message = await assembled(await translateFixture('length-stream.sse'));
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.content).toEqual([{ type: 'text', text: 'Once upon a time' }]);
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
  });

  it('ends with the messages error event when the upstream fails mid-stream, and writes nothing after it', async () => {
    const events = messagesEvents(await translateFixture('error-mid-stream.sse'));
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: {
        type: 'error',
        error: { type: 'server_error', message: 'The server had an error while processing your request.' },
      },
    });
    expect(events.some(({ data }) => data.type === 'message_stop')).toBe(false);
  });

  it('reports a stream that ends before the answer says why as incomplete', () => {
    const translator = chatToMessages();
    translator.push({ event: undefined, data: JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hal' } }] }) });
    const end = messagesEvents(translator.end());
    expect(end).toEqual([
      {
        event: 'error',
        data: {
          type: 'error',
          error: {
            type: 'upstream_stream_incomplete',
            message: 'The upstream stream ended before the answer was complete.',
          },
        },
      },
    ]);
  });
});
