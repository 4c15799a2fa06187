import { describe, expect, it } from 'vitest';
import { usageOfChatAnswer } from '../../../shared/wires/openai-chat/openai-chat-answer.ts';
import { isUsageOnlyChunk, parseChatStreamEvent } from '../../../shared/wires/openai-chat/openai-chat-stream-event.ts';
import { createChatStreamUsageReader } from '../../../shared/wires/openai-chat/openai-chat-usage.ts';
import type { UsageReport } from '../../../shared/wires/usage-report.ts';
import { readSseEvents } from '../../support/sse-fixtures.ts';

/**
 * Usage as OpenAI-compatible chat providers report it (spec §2.4, §4.6 rule 7): OpenAI's own shape, DeepSeek's
 * cache-hit count, GLM's top-level cached count, in a whole body or in the final chunk of a stream.
 */
const completion = (usage: unknown) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  ...(usage === undefined ? {} : { usage }),
});

const chunk = (fields: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}\n\n`;
const textChunk = (content: string, extra: Record<string, unknown> = {}) =>
  chunk({ choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra });
const stopChunk = (extra: Record<string, unknown> = {}) =>
  chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], ...extra });

function streamUsage(sse: string): UsageReport | undefined {
  const reader = createChatStreamUsageReader();
  for (const event of readSseEvents(sse, parseChatStreamEvent)) reader.push(event);
  return reader.result();
}

/** One `data:` payload read as the relay reads it, then handed to the reader if it is an event at all. */
function pushData(reader: ReturnType<typeof createChatStreamUsageReader>, data: string): void {
  const event = parseChatStreamEvent({ event: undefined, data });
  if (event) reader.push(event);
}

function isUsageOnly(data: string): boolean {
  const event = parseChatStreamEvent({ event: undefined, data });
  return event !== undefined && isUsageOnlyChunk(event);
}

describe('openai chat body usage', () => {
  it('reads prompt, completion and cached tokens of the OpenAI shape (`prompt_tokens_details.cached_tokens`)', () => {
    const usage = {
      prompt_tokens: 1_200,
      completion_tokens: 80,
      total_tokens: 1_280,
      prompt_tokens_details: { cached_tokens: 1_024, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 30 },
    };
    expect(usageOfChatAnswer(completion(usage))).toEqual({
      inputTokens: 1_200,
      cachedInputTokens: 1_024,
      outputTokens: 80,
    });
  });

  it('reads DeepSeek`s `prompt_cache_hit_tokens` as cached input (a part of prompt_tokens, not an addition)', () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      prompt_cache_hit_tokens: 64,
      prompt_cache_miss_tokens: 36,
    };
    expect(usageOfChatAnswer(completion(usage))).toEqual({ inputTokens: 100, cachedInputTokens: 64, outputTokens: 5 });
  });

  it('reads GLM`s top-level `cached_tokens` as cached input', () => {
    const usage = { prompt_tokens: 300, completion_tokens: 12, total_tokens: 312, cached_tokens: 256 };
    expect(usageOfChatAnswer(completion(usage))).toEqual({
      inputTokens: 300,
      cachedInputTokens: 256,
      outputTokens: 12,
    });
  });

  it('prefers `prompt_tokens_details.cached_tokens`, and falls through when it is null', () => {
    expect(
      usageOfChatAnswer(
        completion({
          prompt_tokens: 50,
          completion_tokens: 1,
          prompt_tokens_details: { cached_tokens: 10 },
          prompt_cache_hit_tokens: 20,
          cached_tokens: 30,
        }),
      )?.cachedInputTokens,
    ).toBe(10);
    expect(
      usageOfChatAnswer(
        completion({
          prompt_tokens: 50,
          completion_tokens: 1,
          prompt_tokens_details: { cached_tokens: null },
          prompt_cache_hit_tokens: 20,
        }),
      )?.cachedInputTokens,
    ).toBe(20);
  });

  it('reports an unreported figure as unknown (null), never as 0', () => {
    expect(usageOfChatAnswer(completion({ prompt_tokens: 9, completion_tokens: 3 }))).toEqual({
      inputTokens: 9,
      cachedInputTokens: null,
      outputTokens: 3,
    });
    expect(usageOfChatAnswer(completion({ completion_tokens: 3 }))).toEqual({
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: 3,
    });
    expect(usageOfChatAnswer(completion({ prompt_tokens: 9, completion_tokens: null }))?.outputTokens).toBeNull();
  });

  it('reports no usage for a body that carries none, or is not a completion at all', () => {
    expect(usageOfChatAnswer(completion(undefined))).toBeUndefined();
    expect(usageOfChatAnswer(completion(null))).toBeUndefined();
    expect(usageOfChatAnswer(undefined)).toBeUndefined();
    expect(usageOfChatAnswer('not an object')).toBeUndefined();
    expect(usageOfChatAnswer({ usage: 'lots' })).toBeUndefined();
  });
});

describe('openai chat stream usage', () => {
  it('reads usage from the final, choiceless chunk of include_usage, past `usage: null` on every other chunk', () => {
    const sse =
      textChunk('Hel', { usage: null }) +
      textChunk('lo', { usage: null }) +
      stopChunk({ usage: null }) +
      chunk({
        choices: [],
        usage: { prompt_tokens: 40, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 32 } },
      }) +
      'data: [DONE]\n\n';
    expect(streamUsage(sse)).toEqual({ inputTokens: 40, cachedInputTokens: 32, outputTokens: 2 });
  });

  it('reads usage carried on the last chunk that still has choices (some compatible engines)', () => {
    const sse =
      textChunk('Hi') +
      stopChunk({ usage: { prompt_tokens: 7, completion_tokens: 1, cached_tokens: 4 } }) +
      'data: [DONE]\n\n';
    expect(streamUsage(sse)).toEqual({ inputTokens: 7, cachedInputTokens: 4, outputTokens: 1 });
  });

  it('reads DeepSeek`s cache hits from a stream', () => {
    const sse =
      textChunk('Hi') +
      chunk({ choices: [], usage: { prompt_tokens: 90, completion_tokens: 3, prompt_cache_hit_tokens: 80 } }) +
      'data: [DONE]\n\n';
    expect(streamUsage(sse)).toEqual({ inputTokens: 90, cachedInputTokens: 80, outputTokens: 3 });
  });

  it('lets a later usage chunk win over an earlier one', () => {
    const sse =
      textChunk('Hi', { usage: { prompt_tokens: 1, completion_tokens: 0 } }) +
      chunk({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 6 } }) +
      'data: [DONE]\n\n';
    expect(streamUsage(sse)).toEqual({ inputTokens: 12, cachedInputTokens: null, outputTokens: 6 });
  });

  it('reports no usage for a stream that carries none, [DONE] included', () => {
    expect(streamUsage(textChunk('Hi') + stopChunk() + 'data: [DONE]\n\n')).toBeUndefined();
    expect(streamUsage(textChunk('Hi', { usage: null }) + stopChunk({ usage: null }))).toBeUndefined();
  });

  it('passes over [DONE], text that is not JSON and chunks of the wrong shape', () => {
    const reader = createChatStreamUsageReader();
    pushData(reader, '[DONE]');
    pushData(reader, 'not json');
    pushData(reader, '{"choices":"nope","usage":{"prompt_tokens":5}}');
    expect(reader.result()).toBeUndefined();
    pushData(reader, '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1}}');
    pushData(reader, '[DONE]');
    expect(reader.result()).toEqual({ inputTokens: 5, cachedInputTokens: null, outputTokens: 1 });
  });
});

describe('isUsageOnlyChunk: the chunk include_usage adds, which a client that did not ask must not get', () => {
  it('is true for a chunk with usage and no choices (empty or absent)', () => {
    expect(isUsageOnly('{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}')).toBe(true);
    expect(isUsageOnly('{"usage":{"prompt_tokens":1,"completion_tokens":1}}')).toBe(true);
    expect(isUsageOnly('{"choices":null,"usage":{"prompt_tokens":1}}')).toBe(true);
  });

  it('is false for a chunk with choices, with or without usage, and for anything that is not a chunk', () => {
    expect(isUsageOnly('{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}')).toBe(false);
    expect(isUsageOnly('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}')).toBe(
      false,
    );
    expect(isUsageOnly('{"choices":[],"usage":null}')).toBe(false);
    expect(isUsageOnly('{"choices":[]}')).toBe(false);
    expect(isUsageOnly('[DONE]')).toBe(false);
    expect(isUsageOnly('not json')).toBe(false);
  });
});
