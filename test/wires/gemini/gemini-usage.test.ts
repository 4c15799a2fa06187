import { describe, expect, it } from 'vitest';
import type { SseMessage } from '../../../shared/sse/sse-event-splitter.ts';
import { usageOfGeminiAnswer } from '../../../shared/wires/gemini/gemini-response.ts';
import { parseGeminiStreamEvent } from '../../../shared/wires/gemini/gemini-stream-event.ts';
import { createGeminiStreamUsageReader } from '../../../shared/wires/gemini/gemini-usage.ts';
import { parseSseText, readJsonFixture, readStreamUsage, readTextFixture } from '../../support/sse-fixtures.ts';

/** One event read as the relay reads it, handed to the reader if it is an event at all. */
function pushMessage(reader: ReturnType<typeof createGeminiStreamUsageReader>, message: SseMessage): void {
  const event = parseGeminiStreamEvent(message);
  if (event) reader.push(event);
}

const chunkOf = (message: SseMessage) => {
  const event = parseGeminiStreamEvent(message);
  return event?.type === 'chunk' ? event.chunk : undefined;
};

const wire = 'wires/gemini';
const streamUsage = (name: string) =>
  readStreamUsage(wire, name, parseGeminiStreamEvent, createGeminiStreamUsageReader);

describe('gemini stream usage', () => {
  it('takes the last cumulative usageMetadata of a text stream, not a sum of chunks', async () => {
    expect(await streamUsage('text-stream.sse')).toEqual({ inputTokens: 9, cachedInputTokens: null, outputTokens: 10 });
  });

  it('counts thoughts as output, also while candidatesTokenCount is still missing', async () => {
    // 7 answer tokens + 390 thought tokens; the first chunks report thoughts only.
    expect(await streamUsage('thinking-stream.sse')).toEqual({
      inputTokens: 12,
      cachedInputTokens: null,
      outputTokens: 397,
    });
  });

  it('reports cached content as cached input, already part of the prompt count', async () => {
    expect(await streamUsage('cached-stream.sse')).toEqual({
      inputTokens: 4120,
      cachedInputTokens: 4032,
      outputTokens: 11,
    });
  });

  it('reports no usage for a stream that carries none', async () => {
    expect(await streamUsage('missing-usage-stream.sse')).toBeUndefined();
  });

  it('leaves output unknown when the stream ends before its final chunk', async () => {
    expect(await streamUsage('interrupted-stream.sse')).toEqual({
      inputTokens: 21,
      cachedInputTokens: null,
      outputTokens: null,
    });
  });

  it('keeps a count a later chunk leaves out, and treats a blocked prompt as final', () => {
    const reader = createGeminiStreamUsageReader();
    pushMessage(reader, {
      event: undefined,
      data: '{"usageMetadata":{"promptTokenCount":30,"thoughtsTokenCount":12}}',
    });
    pushMessage(reader, {
      event: undefined,
      data: '{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"thoughtsTokenCount":12}}',
    });
    expect(reader.result()).toEqual({ inputTokens: 30, cachedInputTokens: null, outputTokens: 12 });
  });

  it('ignores data that is not JSON', () => {
    const reader = createGeminiStreamUsageReader();
    pushMessage(reader, { event: undefined, data: '[{' });
    expect(reader.result()).toBeUndefined();
  });
});

describe('gemini stream chunks', () => {
  it('keeps the function calls of one chunk apart, in order', async () => {
    const events = parseSseText(await readTextFixture(wire, 'tool-calls-stream.sse'));
    const calls = events
      .map(chunkOf)
      .flatMap((chunk) => chunk?.candidates ?? [])
      .flatMap((candidate) => candidate.content?.parts ?? [])
      .flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    expect(calls).toEqual([
      { name: 'get_weather', args: { location: 'Paris, France', unit: 'celsius' } },
      { name: 'get_time', args: { timezone: 'Europe/Paris' } },
    ]);
    expect(await streamUsage('tool-calls-stream.sse')).toEqual({
      inputTokens: 118,
      cachedInputTokens: null,
      outputTokens: 127,
    });
  });

  it('reads the CRLF-separated events of the vendor stream as separate events', async () => {
    const events = parseSseText(await readTextFixture(wire, 'thinking-stream.sse'));
    expect(events).toHaveLength(4);
    const thoughtFlags = events.map((event) => chunkOf(event)?.candidates?.[0]?.content?.parts?.[0]?.thought);
    expect(thoughtFlags).toEqual([true, true, undefined, undefined]);
  });
});

describe('gemini body usage', () => {
  it('reads prompt, cached content, candidates and thoughts', async () => {
    expect(usageOfGeminiAnswer(await readJsonFixture(wire, 'response.json'))).toEqual({
      inputTokens: 4120,
      cachedInputTokens: 4032,
      outputTokens: 397,
    });
  });

  it('counts tool-use prompt tokens (search results fed back to the model) as input', async () => {
    expect(usageOfGeminiAnswer(await readJsonFixture(wire, 'grounded-response.json'))).toEqual({
      inputTokens: 250,
      cachedInputTokens: null,
      outputTokens: 116,
    });
  });

  it('reports unknown rather than 0 for counts that are all missing', () => {
    expect(usageOfGeminiAnswer({ usageMetadata: { totalTokenCount: 5 } })).toEqual({
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: null,
    });
  });

  it('reports no usage for a body without it, or for a token count, which is not consumption', async () => {
    expect(usageOfGeminiAnswer(await readJsonFixture(wire, 'response-missing-usage.json'))).toBeUndefined();
    expect(usageOfGeminiAnswer(await readJsonFixture(wire, 'count-tokens-response.json'))).toBeUndefined();
  });
});
