import { describe, expect, it } from 'vitest';
import type { SseMessage } from '../../../shared/sse/sse-event-splitter.ts';
import { usageOfResponsesAnswer } from '../../../shared/wires/openai-responses/openai-responses-response.ts';
import { parseResponsesStreamEvent } from '../../../shared/wires/openai-responses/openai-responses-stream-event.ts';
import { createResponsesStreamUsageReader } from '../../../shared/wires/openai-responses/openai-responses-usage.ts';
import { parseSseText, readJsonFixture, readStreamUsage, readTextFixture } from '../../support/sse-fixtures.ts';

/** One event read as the relay reads it, handed to the reader if it is an event at all. */
function pushMessage(reader: ReturnType<typeof createResponsesStreamUsageReader>, message: SseMessage): void {
  const event = parseResponsesStreamEvent(message);
  if (event) reader.push(event);
}

const wire = 'wires/openai-responses';
const streamUsage = (name: string) =>
  readStreamUsage(wire, name, parseResponsesStreamEvent, createResponsesStreamUsageReader);

describe('openai responses stream usage', () => {
  it('takes usage from response.completed', async () => {
    expect(await streamUsage('text-stream.sse')).toEqual({ inputTokens: 19, cachedInputTokens: 0, outputTokens: 10 });
  });

  it('reads cached_tokens as cached input, already part of input_tokens', async () => {
    expect(await streamUsage('cached-stream.sse')).toEqual({
      inputTokens: 2306,
      cachedInputTokens: 1920,
      outputTokens: 12,
    });
  });

  it('takes usage from response.incomplete when the output limit ends the response', async () => {
    expect(await streamUsage('incomplete-stream.sse')).toEqual({
      inputTokens: 31,
      cachedInputTokens: 0,
      outputTokens: 16,
    });
  });

  it('takes usage from response.failed when it carries any', () => {
    const reader = createResponsesStreamUsageReader();
    pushMessage(reader, {
      event: 'response.failed',
      data: JSON.stringify({
        type: 'response.failed',
        sequence_number: 9,
        response: {
          status: 'failed',
          error: { code: 'server_error', message: 'failed' },
          usage: { input_tokens: 40, output_tokens: 7 },
        },
      }),
    });
    expect(reader.result()).toEqual({ inputTokens: 40, cachedInputTokens: null, outputTokens: 7 });
  });

  it('reports no usage when the stream fails without it, ends in an error event, or carries none', async () => {
    expect(await streamUsage('failed-stream.sse')).toBeUndefined();
    expect(await streamUsage('error-event-stream.sse')).toBeUndefined();
    expect(await streamUsage('missing-usage-stream.sse')).toBeUndefined();
  });

  it('does not read usage from response.created, even if an engine fills it', () => {
    const reader = createResponsesStreamUsageReader();
    pushMessage(reader, {
      event: 'response.created',
      data: '{"type":"response.created","response":{"status":"in_progress","usage":{"input_tokens":5,"output_tokens":0}}}',
    });
    expect(reader.result()).toBeUndefined();
  });
});

describe('openai responses stream events', () => {
  const streamFixtures = [
    'text-stream.sse',
    'cached-stream.sse',
    'incomplete-stream.sse',
    'tool-calls-stream.sse',
    'failed-stream.sse',
    'error-event-stream.sse',
    'missing-usage-stream.sse',
  ];

  it.each(streamFixtures)('names each event of %s as its type', async (name) => {
    for (const event of parseSseText(await readTextFixture(wire, name))) {
      const { type } = JSON.parse(event.data) as { type: string };
      expect(type).toBe(event.event);
    }
  });

  it('keeps the arguments of several function calls apart by output index', async () => {
    const calls = new Map<
      number,
      { name: string | null | undefined; callId: string | null | undefined; arguments: string }
    >();
    let reasoningItems = 0;
    for (const event of parseSseText(await readTextFixture(wire, 'tool-calls-stream.sse'))) {
      const parsed = parseResponsesStreamEvent(event);
      if (parsed?.type === 'response.output_item.added' && parsed.item.type === 'function_call') {
        calls.set(parsed.output_index, { name: parsed.item.name, callId: parsed.item.call_id, arguments: '' });
      } else if (parsed?.type === 'response.output_item.added' && parsed.item.type === 'reasoning') {
        reasoningItems += 1;
      } else if (parsed?.type === 'response.function_call_arguments.delta') {
        const call = calls.get(parsed.output_index);
        if (call) call.arguments += parsed.delta;
      }
    }
    expect(reasoningItems).toBe(1);
    expect([...calls.keys()]).toEqual([1, 2]);
    expect(calls.get(1)?.name).toBe('get_weather');
    expect(calls.get(1)?.callId).toBe('call_Kq1Zb7yVfJ3xN9mA2pL4tR8s');
    expect(JSON.parse(calls.get(1)?.arguments ?? '')).toEqual({ location: 'Paris, France', unit: 'celsius' });
    expect(calls.get(2)?.name).toBe('get_time');
    expect(JSON.parse(calls.get(2)?.arguments ?? '')).toEqual({ timezone: 'Europe/Paris' });
    // output_tokens already includes the 128 reasoning tokens.
    expect(await streamUsage('tool-calls-stream.sse')).toEqual({
      inputTokens: 312,
      cachedInputTokens: 0,
      outputTokens: 182,
    });
  });
});

describe('openai responses body usage', () => {
  it('reads input, cached input and output (reasoning included)', async () => {
    expect(usageOfResponsesAnswer(await readJsonFixture(wire, 'response.json'))).toEqual({
      inputTokens: 2306,
      cachedInputTokens: 1920,
      outputTokens: 204,
    });
  });

  it('reports cached input as unknown, not 0, when the details are absent', () => {
    expect(usageOfResponsesAnswer({ usage: { input_tokens: 12, output_tokens: 3 } })).toEqual({
      inputTokens: 12,
      cachedInputTokens: null,
      outputTokens: 3,
    });
  });

  it('reports no usage for a body without it', async () => {
    expect(usageOfResponsesAnswer(await readJsonFixture(wire, 'response-missing-usage.json'))).toBeUndefined();
    expect(usageOfResponsesAnswer(null)).toBeUndefined();
  });
});
