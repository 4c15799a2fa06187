import { describe, expect, it } from 'vitest';
import { usageOfMessagesAnswer } from '../../../shared/wires/anthropic-messages/anthropic-messages-answer.ts';
import { parseMessagesStreamEvent } from '../../../shared/wires/anthropic-messages/anthropic-messages-stream-event.ts';
import { createMessagesStreamUsageReader } from '../../../shared/wires/anthropic-messages/anthropic-messages-usage.ts';
import { readJsonFixture, readStreamUsage, readTextFixture, splitSseText } from '../../support/sse-fixtures.ts';

const wire = 'wires/anthropic-messages';
const streamUsage = (name: string) =>
  readStreamUsage(wire, name, parseMessagesStreamEvent, createMessagesStreamUsageReader);

describe('anthropic messages stream usage', () => {
  it('takes input from message_start and output from message_delta in a text stream', async () => {
    expect(await streamUsage('text-stream.sse')).toEqual({ inputTokens: 21, cachedInputTokens: 0, outputTokens: 12 });
  });

  it('adds cache reads and cache writes back into input, and reports only reads as cached', async () => {
    // 14 uncached + 2764 read from cache + 248 written to cache.
    expect(await streamUsage('cached-stream.sse')).toEqual({
      inputTokens: 3026,
      cachedInputTokens: 2764,
      outputTokens: 57,
    });
  });

  it('lets input and cache counts restated in message_delta win over message_start', async () => {
    // A compatible engine that sends zeros first and the real counts at the end.
    expect(await streamUsage('message-delta-input-stream.sse')).toEqual({
      inputTokens: 779,
      cachedInputTokens: 256,
      outputTokens: 31,
    });
    expect(await streamUsage('restated-usage-stream.sse')).toEqual({
      inputTokens: 10682,
      cachedInputTokens: 0,
      outputTokens: 510,
    });
  });

  it('keeps message_start counts when message_delta sends them as null', async () => {
    expect(await streamUsage('message-delta-null-fields-stream.sse')).toEqual({
      inputTokens: 2679,
      cachedInputTokens: 0,
      outputTokens: 40,
    });
  });

  it('reports no usage for a stream that carries none', async () => {
    expect(await streamUsage('missing-usage-stream.sse')).toBeUndefined();
  });

  it('leaves output unknown when the stream ends before message_delta, not the placeholder of message_start', async () => {
    expect(await streamUsage('interrupted-stream.sse')).toEqual({
      inputTokens: 88,
      cachedInputTokens: 0,
      outputTokens: null,
    });
  });

  it('reads events that are not JSON or not known as no event at all', () => {
    expect(parseMessagesStreamEvent({ event: 'ping', data: 'not json' })).toBeUndefined();
    expect(
      parseMessagesStreamEvent({ event: 'future_event', data: '{"type":"future_event","usage":{"output_tokens":5}}' }),
    ).toBeUndefined();
  });

  it('reads a message_delta whose usage an engine mangled for its stop reason, without the usage', () => {
    const event = parseMessagesStreamEvent({
      event: 'message_delta',
      data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":"five"}}',
    });
    expect(event).toEqual({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: undefined });
  });
});

describe('anthropic messages stream events', () => {
  const streamFixtures = [
    'text-stream.sse',
    'tool-calls-stream.sse',
    'cached-stream.sse',
    'message-delta-input-stream.sse',
    'message-delta-null-fields-stream.sse',
    'restated-usage-stream.sse',
    'missing-usage-stream.sse',
    'interrupted-stream.sse',
  ];

  it.each(streamFixtures)('parses every event of %s, named as its type', async (name) => {
    for (const { message } of splitSseText(await readTextFixture(wire, name))) {
      if (!message) continue;
      const parsed = parseMessagesStreamEvent(message);
      expect(parsed, message.data).toBeDefined();
      expect(parsed?.type).toBe(message.event);
    }
  });

  it('keeps the content blocks of several tool calls apart by index', async () => {
    const blocks = new Map<number, { type: string; name: string | null | undefined; json: string }>();
    for (const { message } of splitSseText(await readTextFixture(wire, 'tool-calls-stream.sse'))) {
      const parsed = message && parseMessagesStreamEvent(message);
      if (parsed?.type === 'content_block_start') {
        blocks.set(parsed.index, { type: parsed.content_block.type, name: parsed.content_block.name, json: '' });
      } else if (parsed?.type === 'content_block_delta' && parsed.delta.partial_json != null) {
        const block = blocks.get(parsed.index);
        if (block) block.json += parsed.delta.partial_json;
      }
    }
    expect([...blocks.keys()]).toEqual([0, 1, 2]);
    expect(blocks.get(0)?.type).toBe('text');
    expect(blocks.get(1)?.name).toBe('get_weather');
    expect(JSON.parse(blocks.get(1)?.json ?? '')).toEqual({ location: 'Paris, France', unit: 'celsius' });
    expect(blocks.get(2)?.name).toBe('get_time');
    expect(JSON.parse(blocks.get(2)?.json ?? '')).toEqual({ timezone: 'Europe/Paris' });
    expect(await streamUsage('tool-calls-stream.sse')).toEqual({
      inputTokens: 472,
      cachedInputTokens: 0,
      outputTokens: 129,
    });
  });
});

describe('anthropic messages body usage', () => {
  it('adds cache reads and writes back into input', async () => {
    expect(usageOfMessagesAnswer(await readJsonFixture(wire, 'response.json'))).toEqual({
      inputTokens: 3026,
      cachedInputTokens: 2764,
      outputTokens: 57,
    });
  });

  it('reports cached input as unknown, not 0, when the cache fields are absent', async () => {
    expect(usageOfMessagesAnswer(await readJsonFixture(wire, 'response-without-cache-fields.json'))).toEqual({
      inputTokens: 9,
      cachedInputTokens: null,
      outputTokens: 3,
    });
  });

  it('reports input as unknown when input_tokens is absent, whatever the cache counts', () => {
    expect(usageOfMessagesAnswer({ usage: { cache_read_input_tokens: 100, output_tokens: 4 } })).toEqual({
      inputTokens: null,
      cachedInputTokens: 100,
      outputTokens: 4,
    });
  });

  it('reports no usage for a body without it, or for a token count, which is not consumption', async () => {
    expect(usageOfMessagesAnswer(await readJsonFixture(wire, 'response-missing-usage.json'))).toBeUndefined();
    expect(usageOfMessagesAnswer(await readJsonFixture(wire, 'count-tokens-response.json'))).toBeUndefined();
    expect(usageOfMessagesAnswer('not an object')).toBeUndefined();
  });
});
