import { describe, expect, it } from 'vitest';
import { chatPayloads } from '../chat-to-messages/translate-fixture.ts';
import { converseToChat, translateFixture } from './translate-fixture.ts';

interface ChunkView {
  choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: unknown;
}

function chunksOf(payloads: unknown[]): ChunkView[] {
  return payloads.filter(
    (payload): payload is ChunkView => typeof payload === 'object' && payload !== null && 'choices' in payload,
  );
}

const deltas = (payloads: unknown[]) => chunksOf(payloads).flatMap((chunk) => chunk.choices.map((c) => c.delta));
const joined = (payloads: unknown[], field: string) =>
  deltas(payloads)
    .map((delta) => (typeof delta[field] === 'string' ? delta[field] : ''))
    .join('');
const finishReasons = (payloads: unknown[]) =>
  chunksOf(payloads)
    .flatMap((chunk) => chunk.choices.map((c) => c.finish_reason))
    .filter((reason) => reason !== null);

describe('createConverseToChatTransformer', () => {
  it.each(['reasoning-text-tool-stream.sse', 'text-length-stream.sse', 'exception-mid-stream.sse'])(
    'translates %s the same however the network split its bytes',
    async (name) => {
      const whole = await translateFixture(name, { includeUsage: true }, Number.MAX_SAFE_INTEGER);
      for (const chunkSize of [1, 2, 3, 5, 7, 64]) {
        expect(await translateFixture(name, { includeUsage: true }, chunkSize)).toBe(whole);
      }
    },
  );

  it('opens with the role, streams reasoning and text, then each tool call: id and name first, then its arguments', async () => {
    const payloads = chatPayloads(await translateFixture('reasoning-text-tool-stream.sse'));
    expect(payloads[0]).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion.chunk',
      created: 1_760_000_000,
      model: 'bedrock/nova-lite',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    expect(joined(payloads, 'reasoning_content')).toBe('The user wants the weather in Paris; I will call the tool.');
    expect(joined(payloads, 'content')).toBe('Let me check the weather in Paris.');
    const toolDeltas = deltas(payloads).filter((delta) => delta.tool_calls);
    expect(toolDeltas).toEqual([
      {
        tool_calls: [
          {
            index: 0,
            // The first call's id carries the signed reasoning before it (reasoning-in-call-id.ts).
            id: expect.stringMatching(/^tooluse_3QIT3oXETJmyb7UULfNg3w_gwr1_[\w-]+$/),
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ' "Paris", "unit": "celsius"}' } }] },
      {
        tool_calls: [
          {
            index: 1,
            id: 'tooluse_8Xb2pq0RTk6Q1s9lmP4dZw',
            type: 'function',
            function: { name: 'get_time', arguments: '' },
          },
        ],
      },
      // A call whose input never streamed still gets arguments a client can parse.
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
    ]);
    expect(finishReasons(payloads)).toEqual(['tool_calls']);
    // The finish chunk carries the signed reasoning, for a client to send back unchanged.
    expect(chunksOf(payloads).at(-1)?.choices[0]?.delta).toEqual({
      thinking_blocks: [
        {
          type: 'thinking',
          thinking: 'The user wants the weather in Paris; I will call the tool.',
          signature: 'Ep0CCkgICxABGAIqQOWPB6/PmA5SW9jC6FvaNq3E',
        },
      ],
    });
    expect(payloads.at(-1)).toBe('[DONE]');
    expect(chunksOf(payloads).some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('with include_usage: usage null on every chunk, then a usage-only chunk in chat form, then [DONE]', async () => {
    const payloads = chatPayloads(await translateFixture('reasoning-text-tool-stream.sse', { includeUsage: true }));
    const chunks = chunksOf(payloads);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(payloads.at(-2)).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion.chunk',
      created: 1_760_000_000,
      model: 'bedrock/nova-lite',
      choices: [],
      // Input counts cache reads and writes; the reads are its cached part.
      usage: {
        prompt_tokens: 1436,
        completion_tokens: 96,
        total_tokens: 1532,
        prompt_tokens_details: { cached_tokens: 1024 },
      },
    });
    expect(payloads.at(-1)).toBe('[DONE]');
  });

  it('max_tokens is finish_reason length, in the union form of events too', async () => {
    const payloads = chatPayloads(await translateFixture('text-length-stream.sse', { includeUsage: true }));
    expect(joined(payloads, 'content')).toBe('Once upon a time, there was');
    expect(finishReasons(payloads)).toEqual(['length']);
    expect(payloads.at(-2)).toMatchObject({ choices: [], usage: { prompt_tokens: 18, completion_tokens: 5 } });
  });

  it('an exception mid-stream ends the stream with chat’s error payload and no [DONE]', async () => {
    const payloads = chatPayloads(await translateFixture('exception-mid-stream.sse'));
    expect(joined(payloads, 'content')).toBe('The answer is');
    expect(payloads.at(-1)).toEqual({
      error: {
        message: 'Too many tokens, please wait before trying again.',
        type: 'rate_limit_error',
        code: 'throttlingException',
      },
    });
    expect(payloads).not.toContain('[DONE]');
  });

  it('completes once the answer has both stopped and reported usage, in either order', () => {
    const usageFirst = converseToChat({ includeUsage: true });
    usageFirst.push({ data: '{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"ok"}}}' });
    expect(usageFirst.push({ data: '{"metadata":{"usage":{"inputTokens":3,"outputTokens":1}}}' })).toBe('');
    const ended = chatPayloads(usageFirst.push({ data: '{"messageStop":{"stopReason":"end_turn"}}' }));
    expect(ended.map((payload) => (typeof payload === 'string' ? payload : Object.keys(payload as object)))).toEqual([
      ['id', 'object', 'created', 'model', 'choices', 'usage'],
      ['id', 'object', 'created', 'model', 'choices', 'usage'],
      '[DONE]',
    ]);
    expect(usageFirst.end()).toBe('');

    // Without metadata, the end of the stream completes a stopped answer, with no usage to tell.
    const noUsage = converseToChat({ includeUsage: true });
    noUsage.push({ data: '{"messageStop":{"stopReason":"end_turn"}}' });
    expect(chatPayloads(noUsage.end())).toEqual(['[DONE]']);
  });

  it('a stream that ends before messageStop ends with upstream_stream_incomplete', () => {
    const cut = converseToChat();
    cut.push({ event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Half"}}' });
    expect(chatPayloads(cut.end())).toEqual([
      {
        error: {
          message: 'The upstream stream ended before the answer was complete.',
          type: 'upstream_stream_incomplete',
          code: 'upstream_stream_incomplete',
        },
      },
    ]);
  });

  it('a hop that reads the stream gets each signed or redacted reasoning block as it closes', () => {
    const forHop = converseToChat({ thinkingBlocksAsTheyClose: true });
    forHop.push({
      data: '{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"redactedContent":"c2VjcmV0"}}}}',
    });
    const closed = chatPayloads(forHop.push({ data: '{"contentBlockStop":{"contentBlockIndex":0}}' }));
    // The role opens the stream first, as ever.
    expect(closed).toMatchObject([
      { choices: [{ delta: { role: 'assistant' } }] },
      { choices: [{ delta: { thinking_blocks: [{ type: 'redacted_thinking', data: 'c2VjcmV0' }] } }] },
    ]);
    const finished = chatPayloads(forHop.push({ data: '{"messageStop":{"stopReason":"guardrail_intervened"}}' }));
    expect(finished).toMatchObject([{ choices: [{ delta: {}, finish_reason: 'content_filter' }] }]);
  });
});
