import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { relayEventStream } from '../../shared/pipeline/relay-event-stream.ts';
import type { SseMessage } from '../../shared/sse/sse-event-splitter.ts';
import type { EventTransformer } from '../../shared/streams/event-transformer.ts';
import type { ClientChunk, RelayedEvent } from '../../shared/streams/relayed-event.ts';
import { createMessagesToChatTransformer } from '../../shared/translation/chat-to-messages/messages-to-chat-stream.ts';
import { passThroughStream, translatedStream } from '../../shared/translation/client-stream.ts';
import { anthropicMessagesUpstreamWire } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { openaiChatClientWire } from '../../shared/wires/openai-chat/openai-chat-client-wire.ts';
import { encodeChatStreamEvent } from '../../shared/wires/openai-chat/openai-chat-sse.ts';
import { type ChatStreamEvent, isUsageOnlyChunk } from '../../shared/wires/openai-chat/openai-chat-stream-event.ts';
import { openaiChatUpstreamWire } from '../../shared/wires/openai-chat/openai-chat-upstream-wire.ts';
import type { UpstreamWireFormat } from '../../shared/wires/upstream-wire-format.ts';
import { chunksOf } from '../support/sse-fixtures.ts';

const encoder = new TextEncoder();

/** An upstream that hands over one chunk per read, and counts the reads it was asked for. */
function upstreamOf(chunks: readonly (string | Uint8Array)[]) {
  let reads = 0;
  const stream = new Readable({
    highWaterMark: 0,
    read() {
      const chunk = chunks[reads++];
      this.push(chunk === undefined ? null : typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    },
  });
  return { stream, reads: () => reads };
}

/** Everything the client receives, as text. */
async function textOf(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** The upstream wire with its event reader counted: every event must be read exactly once. */
function counted<Answer, Event>(wire: UpstreamWireFormat<Answer, Event>) {
  let parses = 0;
  return {
    wire: {
      ...wire,
      parseEvent(message: SseMessage) {
        parses += 1;
        return wire.parseEvent(message);
      },
    },
    parses: () => parses,
  };
}

function relay<Event>(
  chunks: readonly (string | Uint8Array)[],
  upstreamWire: Pick<
    UpstreamWireFormat<unknown, Event>,
    'parseEvent' | 'isFailure' | 'endsAnswer' | 'createUsageReader'
  >,
  toClient: EventTransformer<RelayedEvent<Event>, ClientChunk>,
  options: { deadline?: AbortSignal; upstream?: Readable } = {},
) {
  const upstream = upstreamOf(chunks);
  const aborts: unknown[] = [];
  const relayed = relayEventStream({
    upstream: options.upstream ?? upstream.stream,
    upstreamWire,
    toClient,
    failureEvent: (reason) => `event: error\ndata: {"reason":"${reason}"}\n\n`,
    idleTimeoutMs: 60_000,
    deadline: options.deadline ?? new AbortController().signal,
    abortUpstream: (reason) => aborts.push(reason),
  });
  return { ...relayed, reads: upstream.reads, aborts };
}

const messageStart =
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}\n\n';
const messageDelta =
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}\n\n';

const chatChunk = (content: string) =>
  `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\r\n\r\n`;
const usageChunk =
  'data:{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2}}\r\n\r\n';

describe('relaying an upstream event stream', () => {
  it('passes the bytes through unchanged, reads each event once, and completes with the usage it read', async () => {
    const messages = counted(anthropicMessagesUpstreamWire);
    const comment = ': keep-alive\n\n';
    const { body, ended } = relay([messageStart, comment, messageDelta], messages.wire, passThroughStream(undefined));
    expect(await textOf(body)).toBe(messageStart + comment + messageDelta);
    expect(await ended).toEqual({
      completed: true,
      usage: { inputTokens: 10, cachedInputTokens: null, outputTokens: 4 },
    });
    expect(messages.parses()).toBe(2);
  });

  it("relays the upstream's own error event but does not count the answer as completed", async () => {
    const overloaded =
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const { body, ended } = relay(
      [messageStart, overloaded],
      anthropicMessagesUpstreamWire,
      passThroughStream(undefined),
    );
    expect(await textOf(body)).toBe(messageStart + overloaded);
    expect((await ended).completed).toBe(false);
  });

  it('drops the one usage chunk a chat client did not ask for and forwards every other byte as it came', async () => {
    // The upstream's own spacing, CRLF line ends and `data:` without a space, split at awkward places.
    const upstreamText = chatChunk('Hel') + chatChunk('lo ünïcode') + usageChunk + 'data:[DONE]\r\n\r\n';
    const drops = openaiChatClientWire.passThroughDrops(
      openaiChatClientWire.parseRequest(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        {
          innerPath: '/v1/chat/completions',
          query: new URLSearchParams(),
        },
      ),
    );
    expect(drops).toBe(isUsageOnlyChunk);
    for (const size of [1, 3, 7, 50, upstreamText.length]) {
      const { body, ended } = relay(
        chunksOf(encoder.encode(upstreamText), size),
        openaiChatUpstreamWire,
        passThroughStream<ChatStreamEvent>(drops),
      );
      expect(await textOf(body)).toBe(chatChunk('Hel') + chatChunk('lo ünïcode') + 'data:[DONE]\r\n\r\n');
      expect(await ended).toMatchObject({ completed: true, usage: { inputTokens: 7, outputTokens: 2 } });
    }
  });

  it('translates typed events and writes them with the client wire encoder only', async () => {
    const messages = counted(anthropicMessagesUpstreamWire);
    const textBlock =
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n';
    const { body, ended } = relay(
      [messageStart, textBlock, messageDelta, 'event: message_stop\ndata: {"type":"message_stop"}\n\n'],
      messages.wire,
      translatedStream(
        createMessagesToChatTransformer({ id: 'chatcmpl-1', model: 'alpha/k2.7', includeUsage: true, created: 1 }),
        encodeChatStreamEvent,
      ),
    );
    const text = await textOf(body);
    expect(text.split('\n\n').filter(Boolean).at(-1)).toBe('data: [DONE]');
    expect(text).toContain('"content":"Hi"');
    expect(text).toContain('"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}');
    expect((await ended).completed).toBe(true);
    expect(messages.parses()).toBe(5);
  });

  it('ends the stream as interrupted when a translator fails, and says so', async () => {
    const failing: EventTransformer<RelayedEvent<unknown>, ClientChunk> = {
      transform() {
        throw new Error('a translator bug');
      },
    };
    const { body, ended } = relay([messageStart, messageDelta], anthropicMessagesUpstreamWire, failing);
    expect(await textOf(body)).toBe('event: error\ndata: {"reason":"interrupted"}\n\n');
    const ending = await ended;
    expect(ending.completed).toBe(false);
    expect(ending.fault).toBeInstanceOf(Error);
  });
});

describe('a stream the upstream cut off', () => {
  const textBlock =
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n';
  const messageStop = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

  /** An upstream whose connection breaks once it has sent these chunks. */
  function breakingAfter(chunks: readonly string[]): Readable {
    let reads = 0;
    return new Readable({
      highWaterMark: 0,
      read() {
        const chunk = chunks[reads++];
        if (chunk === undefined) this.destroy(new Error('socket hang up'));
        else this.push(encoder.encode(chunk));
      },
    });
  }

  it('is not completed when its body ends cleanly before the closing event, passed through or translated', async () => {
    const passed = relay([messageStart, textBlock], anthropicMessagesUpstreamWire, passThroughStream(undefined));
    expect(await textOf(passed.body)).toBe(
      `${messageStart}${textBlock}event: error\ndata: {"reason":"interrupted"}\n\n`,
    );
    expect(await passed.ended).toMatchObject({ completed: false, usage: { inputTokens: 10 } });

    const translated = relay(
      [messageStart, textBlock],
      anthropicMessagesUpstreamWire,
      translatedStream(
        createMessagesToChatTransformer({ id: 'chatcmpl-1', model: 'alpha/k2.7', includeUsage: true, created: 1 }),
        encodeChatStreamEvent,
      ),
    );
    const text = await textOf(translated.body);
    // The translator never closes an answer it does not have whole: no finish reason, no [DONE], the failure event.
    expect(text).toContain('"content":"Hi"');
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('"finish_reason":"stop"');
    expect(text.endsWith('event: error\ndata: {"reason":"interrupted"}\n\n')).toBe(true);
    expect((await translated.ended).completed).toBe(false);
  });

  it('is not completed when its connection breaks before the closing event', async () => {
    const { body, ended } = relay([], anthropicMessagesUpstreamWire, passThroughStream(undefined), {
      upstream: breakingAfter([messageStart, textBlock]),
    });
    expect(await textOf(body)).toBe(`${messageStart}${textBlock}event: error\ndata: {"reason":"interrupted"}\n\n`);
    expect((await ended).completed).toBe(false);
  });

  it('is completed when its connection breaks after the closing event: the answer is whole', async () => {
    for (const sent of [
      [messageStart, textBlock, messageDelta, messageStop],
      // The stop reason and the final usage come in `message_delta`: the answer is whole there already.
      [messageStart, textBlock, messageDelta],
    ]) {
      const { body, ended } = relay([], anthropicMessagesUpstreamWire, passThroughStream(undefined), {
        upstream: breakingAfter(sent),
      });
      expect(await textOf(body)).toBe(sent.join(''));
      expect(await ended).toEqual({
        completed: true,
        usage: { inputTokens: 10, cachedInputTokens: null, outputTokens: 4 },
      });
    }
  });
});

describe('backpressure', () => {
  /** An upstream that could send a thousand events at once, one per read. */
  const plenty = Array.from({ length: 1000 }, (_, index) => chatChunk(`token ${index}`));

  it.each([
    ['a pass-through', () => passThroughStream<ChatStreamEvent>(undefined)],
    [
      'a translation',
      () =>
        translatedStream<ChatStreamEvent, ChatStreamEvent>(
          { transform: (event, controller) => controller.enqueue(event) },
          encodeChatStreamEvent,
        ),
    ],
  ])('in %s, reads the upstream only as fast as a slow client takes the answer', async (_name, toClient) => {
    const { body, reads } = relay(plenty, openaiChatUpstreamWire, toClient());
    for (let taken = 1; taken <= 5; taken++) {
      await body.next();
      // The client is slow: many turns of the event loop pass before it reads again.
      for (let turn = 0; turn < 50; turn++) await nextTurn();
      // Nothing is read ahead of the client: at most the chunk it will get next.
      expect(reads()).toBeLessThanOrEqual(taken + 1);
    }
    await body.return?.();
  });
});

describe('the request deadline', () => {
  const plenty = Array.from({ length: 1000 }, (_, index) => chatChunk(`token ${index}`));

  it('ends the stream while the client is not reading: the upstream is aborted and the relay has ended', async () => {
    const deadline = new AbortController();
    const { body, ended, aborts, reads } = relay(plenty, openaiChatUpstreamWire, passThroughStream(undefined), {
      deadline: deadline.signal,
    });
    const first = await body.next();
    expect(first.done).toBe(false);
    // The client stops reading; nothing is waiting on the upstream either. The deadline's own timer fires.
    deadline.abort();
    const ending = await ended;
    expect(ending.completed).toBe(false);
    expect(aborts).toHaveLength(1);
    expect(reads()).toBeLessThanOrEqual(2);
    // When the client reads again, the stream ends with the time-out event, after nothing more of the upstream.
    const rest: string[] = [];
    for (let next = await body.next(); !next.done; next = await body.next()) {
      rest.push(new TextDecoder().decode(next.value));
    }
    expect(rest).toEqual(['event: error\ndata: {"reason":"timeout"}\n\n']);
  });

  it('ends the stream while the relay waits on an upstream that sends nothing', async () => {
    const deadline = new AbortController();
    const silent = new Readable({ highWaterMark: 0, read() {} });
    const { body, ended, aborts } = relay([], openaiChatUpstreamWire, passThroughStream(undefined), {
      deadline: deadline.signal,
      upstream: silent,
    });
    const text = textOf(body);
    await nextTurn();
    deadline.abort();
    expect(await text).toBe('event: error\ndata: {"reason":"timeout"}\n\n');
    expect((await ended).completed).toBe(false);
    expect(aborts).toHaveLength(1);
  });

  it('changes nothing once the stream has ended', async () => {
    const deadline = new AbortController();
    const { body, ended, aborts } = relay(
      [chatChunk('Hi'), usageChunk, 'data: [DONE]\n\n'],
      openaiChatUpstreamWire,
      passThroughStream(undefined),
      {
        deadline: deadline.signal,
      },
    );
    const text = await textOf(body);
    deadline.abort();
    expect(text).not.toContain('timeout');
    expect((await ended).completed).toBe(true);
    expect(aborts).toEqual([]);
  });
});
