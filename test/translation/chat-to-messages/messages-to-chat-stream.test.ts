import { describe, expect, it } from 'vitest';
import { chatPayloads, messagesToChat, translateFixture } from './translate-fixture.ts';

interface ChunkView {
  choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: unknown;
}

/** The chunks of a translated stream, without the closing `[DONE]` or an error event. */
function chunksOf(payloads: unknown[]): ChunkView[] {
  return payloads.filter(
    (payload): payload is ChunkView => typeof payload === 'object' && payload !== null && 'choices' in payload,
  );
}

const deltas = (payloads: unknown[]) => chunksOf(payloads).flatMap((chunk) => chunk.choices.map((c) => c.delta));
const contentOf = (payloads: unknown[]) =>
  deltas(payloads)
    .map((delta) => delta.content ?? '')
    .join('');
const reasoningOf = (payloads: unknown[]) =>
  deltas(payloads)
    .map((delta) => delta.reasoning_content ?? '')
    .join('');
const finishReasons = (payloads: unknown[]) =>
  chunksOf(payloads)
    .flatMap((chunk) => chunk.choices.map((c) => c.finish_reason))
    .filter((reason) => reason !== null);

describe('createMessagesToChatTransformer', () => {
  it.each([
    'text-stream.sse',
    'one-tool-call-stream.sse',
    'parallel-tool-calls-stream.sse',
    'thinking-then-text-stream.sse',
    'max-tokens-stream.sse',
    'error-mid-stream.sse',
  ])('translates %s the same however the network split its bytes', async (name) => {
    const whole = await translateFixture(name, { includeUsage: true }, Number.MAX_SAFE_INTEGER);
    for (const chunkSize of [1, 2, 3, 5, 7, 64]) {
      expect(await translateFixture(name, { includeUsage: true }, chunkSize)).toBe(whole);
    }
  });

  it('translates a text stream: role first, text deltas, finish_reason stop, then [DONE]', async () => {
    const payloads = chatPayloads(await translateFixture('text-stream.sse'));
    expect(payloads[0]).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion.chunk',
      created: 1_760_000_000,
      model: 'alpha/alpha-k2.7-code',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    expect(deltas(payloads).slice(1, 4)).toEqual([
      { content: 'Hello' },
      { content: '! How can I help' },
      { content: ' you today?' },
    ]);
    expect(contentOf(payloads)).toBe('Hello! How can I help you today?');
    expect(payloads.at(-2)).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }] });
    expect(payloads.at(-1)).toBe('[DONE]');
    expect(finishReasons(payloads)).toEqual(['stop']);
  });

  it('streams one tool call: id, type and name first with empty arguments, then the argument fragments', async () => {
    const payloads = chatPayloads(await translateFixture('one-tool-call-stream.sse'));
    const toolDeltas = deltas(payloads).filter((delta) => delta.tool_calls);
    expect(toolDeltas).toEqual([
      {
        tool_calls: [
          {
            index: 0,
            // The first call's id also carries the signed reasoning before it (reasoning-in-call-id.ts).
            id: expect.stringMatching(/^toolu_01T1x1fJ34qAmk2tNTrN7Up6_gwr1_[\w-]+$/),
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ' "Paris, France", "unit"' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ': "celsius"}' } }] },
    ]);
    expect(contentOf(payloads)).toBe('Let me look that up.');
    expect(finishReasons(payloads)).toEqual(['tool_calls']);
  });

  it('gives three parallel tool calls indexes 0, 1, 2, independent of the upstream block index', async () => {
    const payloads = chatPayloads(await translateFixture('parallel-tool-calls-stream.sse'));
    const calls = new Map<number, { id?: unknown; name?: unknown; arguments: string }>();
    for (const delta of deltas(payloads)) {
      for (const call of (delta.tool_calls ?? []) as {
        index: number;
        id?: string;
        function: { name?: string; arguments: string };
      }[]) {
        const known = calls.get(call.index) ?? { arguments: '' };
        calls.set(call.index, {
          id: known.id ?? call.id,
          name: known.name ?? call.function.name,
          arguments: known.arguments + call.function.arguments,
        });
      }
    }
    expect(Object.fromEntries(calls)).toEqual({
      0: {
        id: expect.stringMatching(/^toolu_01A09q90qw90lq917835lq9_gwr1_/),
        name: 'get_weather',
        arguments: '{"location": "Tokyo"}',
      },
      1: { id: 'toolu_01GE1Y9sHMxTt6cPRfEGWZ4v', name: 'get_time', arguments: '{"timezone": "Asia/Tokyo"}' },
      // A call without parameters streams no fragment; it still gets parseable arguments.
      2: { id: 'toolu_01CwTdpvT5Hw6wJ2c4gVPdJq', name: 'list_open_files', arguments: '{}' },
    });
    expect(contentOf(payloads)).toBe('');
    expect(finishReasons(payloads)).toEqual(['tool_calls']);
  });

  it('keeps thinking out of content: it streams as reasoning_content', async () => {
    const payloads = chatPayloads(await translateFixture('thinking-then-text-stream.sse'));
    expect(contentOf(payloads)).toBe('27 × 453 = 12,231');
    expect(reasoningOf(payloads)).toBe('27 * 453: 27 * 400 = 10800, 27 * 53 = 1431, total 12231.');
    // The signed block comes once, whole, on the chunk that ends the answer, for the client to send back.
    const withBlocks = deltas(payloads).filter((delta) => delta.thinking_blocks !== undefined);
    expect(withBlocks).toEqual([
      {
        thinking_blocks: [
          {
            type: 'thinking',
            thinking: '27 * 453: 27 * 400 = 10800, 27 * 53 = 1431, total 12231.',
            signature: expect.stringMatching(/^EqQBCgIYAhIM/),
          },
        ],
      },
    ]);
    expect(chunksOf(payloads).find((chunk) => chunk.choices[0]?.finish_reason === 'stop')?.choices[0]?.delta).toEqual(
      withBlocks[0],
    );
  });

  it('ends a stream stopped by max tokens with finish_reason length', async () => {
    const payloads = chatPayloads(await translateFixture('max-tokens-stream.sse'));
    expect(contentOf(payloads)).toBe('The sea rolls in with silver light,\nIt');
    expect(finishReasons(payloads)).toEqual(['length']);
    expect(payloads.at(-1)).toBe('[DONE]');
  });

  it('with include_usage, sends usage: null on chunks and a usage-only chunk with cached input before [DONE]', async () => {
    const payloads = chatPayloads(await translateFixture('parallel-tool-calls-stream.sse', { includeUsage: true }));
    const chunks = chunksOf(payloads);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(payloads.at(-2)).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion.chunk',
      created: 1_760_000_000,
      model: 'alpha/alpha-k2.7-code',
      choices: [],
      // 18 uncached + 2048 cache reads + 120 cache writes.
      usage: {
        prompt_tokens: 2186,
        completion_tokens: 164,
        total_tokens: 2350,
        prompt_tokens_details: { cached_tokens: 2048 },
      },
    });
    expect(payloads.at(-1)).toBe('[DONE]');
  });

  it('without include_usage, sends no usage at all', async () => {
    const text = await translateFixture('thinking-then-text-stream.sse');
    expect(text).not.toContain('usage');
  });

  it('turns an upstream error event mid-stream into a chat error event and ends without [DONE]', async () => {
    const payloads = chatPayloads(await translateFixture('error-mid-stream.sse', { includeUsage: true }));
    expect(contentOf(payloads)).toBe('Here is the first part of');
    expect(payloads.at(-1)).toEqual({
      error: { message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' },
    });
    expect(payloads).not.toContain('[DONE]');
    expect(finishReasons(payloads)).toEqual([]);
  });

  it('reports a stream that ended before any stop reason as incomplete, and sends nothing after closing', () => {
    const transform = messagesToChat();
    const opened = transform.push({
      event: 'message_start',
      data: '{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}',
    });
    expect(chatPayloads(opened)).toHaveLength(1);
    expect(chatPayloads(transform.end())).toEqual([
      {
        error: {
          message: 'The upstream stream ended before the answer was complete.',
          type: 'upstream_stream_incomplete',
          code: 'upstream_stream_incomplete',
        },
      },
    ]);
    expect(transform.end()).toBe('');
    expect(transform.push({ event: 'message_stop', data: '{"type":"message_stop"}' })).toBe('');
  });

  it('completes a stream whose engine sent a stop reason but no message_stop', () => {
    const transform = messagesToChat();
    const text =
      transform.push({ event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"}}' }) +
      transform.end();
    const payloads = chatPayloads(text);
    expect(deltas(payloads)[0]).toEqual({ role: 'assistant', content: '' });
    expect(finishReasons(payloads)).toEqual(['stop']);
    expect(payloads.at(-1)).toBe('[DONE]');
  });

  it('skips pings, unknown events and text that is not JSON', () => {
    const transform = messagesToChat();
    expect(transform.push({ event: 'ping', data: '{"type": "ping"}' })).toBe('');
    expect(transform.push({ event: 'future_event', data: '{"type":"future_event"}' })).toBe('');
    expect(transform.push({ event: undefined, data: 'not json' })).toBe('');
  });
});
