import { describe, expect, it } from 'vitest';
import { deadlineIn } from '../../shared/clock/monotonic-deadline.ts';
import { relayEventStream } from '../../shared/pipeline/relay-event-stream.ts';
import { isUpstreamErrorEvent } from '../../shared/pipeline/upstream-error-event.ts';
import { upstreamWireFor } from '../../shared/wires/upstream-wires.ts';

function streamOf(frames: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame));
      controller.close();
    },
  });
}

async function relay(frames: readonly string[]) {
  const relayed = relayEventStream({
    upstream: streamOf(frames),
    usageReader: upstreamWireFor('anthropic-messages').createStreamUsageReader(),
    errorEvent: () => 'event: error\ndata: {}\n\n',
    idleTimeoutMs: 1_000,
    deadline: deadlineIn(60_000),
    abortUpstream: () => {},
  });
  const text = await new Response(relayed.body).text();
  return { text, ending: await relayed.ended };
}

const messageStart =
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}\n\n';
const messageDelta =
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}\n\n';

describe('relaying an upstream event stream', () => {
  it('passes the bytes through unchanged and completes with the usage it read on the side', async () => {
    const { text, ending } = await relay([messageStart, messageDelta]);
    expect(text).toBe(messageStart + messageDelta);
    expect(ending).toEqual({
      completed: true,
      usage: { inputTokens: 10, cachedInputTokens: null, outputTokens: 4 },
    });
  });

  it("relays the upstream's own error event but does not count the answer as completed", async () => {
    const overloaded =
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const { text, ending } = await relay([messageStart, overloaded]);
    expect(text).toBe(messageStart + overloaded);
    expect(ending.completed).toBe(false);
  });
});

describe('recognising an upstream error event', () => {
  const event = (data: unknown, name?: string) => ({ event: name, data: JSON.stringify(data) });

  it('knows the mid-stream error form of every wire', () => {
    expect(isUpstreamErrorEvent(event({ error: { message: 'boom', type: 'server_error' } }))).toBe(true);
    expect(isUpstreamErrorEvent(event({ type: 'error', code: 'server_error', message: 'boom' }, 'error'))).toBe(true);
    expect(isUpstreamErrorEvent(event({ type: 'error', error: { type: 'api_error', message: 'x' } }))).toBe(true);
    expect(isUpstreamErrorEvent(event({ error: { code: 500, message: 'x', status: 'INTERNAL' } }))).toBe(true);
  });

  it('does not mistake content about errors, or a failed response that carries its usage, for one', () => {
    expect(isUpstreamErrorEvent(event({ choices: [{ delta: { content: 'the "error" was mine' } }] }))).toBe(false);
    expect(isUpstreamErrorEvent(event({ type: 'content_block_delta', delta: { text: '{"error": 1}' } }))).toBe(false);
    expect(isUpstreamErrorEvent(event({ type: 'response.failed', response: { error: { code: 'x' } } }))).toBe(false);
    expect(isUpstreamErrorEvent({ event: undefined, data: '[DONE]' })).toBe(false);
  });
});
