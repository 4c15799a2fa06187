import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createSseEventSplitter, type RawSseEvent, type SseMessage } from '../../shared/sse/sse-event-splitter.ts';
import { type EventTransformer, runTransformer } from '../../shared/streams/event-transformer.ts';
import type { StreamUsageReader, UsageReport } from '../../shared/wires/usage-report.ts';

const fixturesFolder = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** A recorded fixture: `folder` is `wires/<wire>` or `translation/<from>-to-<to>`. */
export function fixturePath(folder: string, name: string): string {
  return `${fixturesFolder}${folder}/${name}`;
}

export async function readTextFixture(folder: string, name: string): Promise<string> {
  return readFile(fixturePath(folder, name), 'utf8');
}

export async function readJsonFixture(folder: string, name: string): Promise<unknown> {
  return JSON.parse(await readTextFixture(folder, name));
}

/**
 * The bytes in pieces of `size`, as network reads split a stream anywhere: inside a line, inside a multi-byte
 * character, between the `\r` and the `\n` of a line end.
 */
export function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

/** The raw events of SSE text, split from its bytes fed in pieces of `chunkSize`, as the relay splits them. */
export function splitSseText(text: string, chunkSize = 37): RawSseEvent[] {
  const splitter = createSseEventSplitter();
  const events = chunksOf(new TextEncoder().encode(text), chunkSize).flatMap((chunk) => splitter.push(chunk));
  return [...events, ...splitter.end()];
}

/** The event fields of SSE text (what a client reads), split as the relay splits them. */
export function parseSseText(text: string, chunkSize = 37): SseMessage[] {
  return splitSseText(text, chunkSize).flatMap((event) => (event.message ? [event.message] : []));
}

/** The typed events of SSE text, each read once by its wire's parser as the relay reads them. */
export function readSseEvents<Event>(
  text: string,
  parseEvent: (message: SseMessage) => Event | undefined,
  chunkSize = 37,
): Event[] {
  return parseSseText(text, chunkSize).flatMap((message) => {
    const event = parseEvent(message);
    return event === undefined ? [] : [event];
  });
}

export async function readFixtureEvents<Event>(
  folder: string,
  name: string,
  parseEvent: (message: SseMessage) => Event | undefined,
  chunkSize = 37,
): Promise<Event[]> {
  return readSseEvents(await readTextFixture(folder, name), parseEvent, chunkSize);
}

/** Replays a recorded stream through a fresh usage reader, as the relay does while it relays the events. */
export async function readStreamUsage<Event>(
  folder: string,
  name: string,
  parseEvent: (message: SseMessage) => Event | undefined,
  createReader: () => StreamUsageReader<Event>,
): Promise<UsageReport | undefined> {
  const reader = createReader();
  for (const event of await readFixtureEvents(folder, name, parseEvent)) reader.push(event);
  return reader.result();
}

/** Runs events through a stream translator as what it is, a `TransformStream`, and collects what comes out. */
export async function transformEvents<In, Out>(
  events: readonly In[],
  transformer: EventTransformer<In, Out>,
): Promise<Out[]> {
  const out: Out[] = [];
  const source = new ReadableStream<In>({
    start(controller) {
      for (const event of events) controller.enqueue(event);
      controller.close();
    },
  });
  for await (const event of source.pipeThrough(new TransformStream(transformer))) out.push(event);
  return out;
}

/**
 * A stream translator driven event by event, as the relay drives it: each upstream event read once, and what it
 * (or the end of the stream) makes the client receive, written by the client wire's encoder.
 */
export function eventByEvent<In, Out>(
  transformer: EventTransformer<In, Out>,
  parseEvent: (message: SseMessage) => In | undefined,
  encode: (event: Out) => string,
): { push(message: SseMessage): string; end(): string } {
  let written: Out[] = [];
  const run = runTransformer(transformer, (event) => written.push(event));
  const take = () => {
    const text = written.map(encode).join('');
    written = [];
    return text;
  };
  return {
    push(message) {
      const event = parseEvent(message);
      if (event !== undefined) run.push(event);
      return take();
    },
    end() {
      run.end();
      return take();
    },
  };
}
