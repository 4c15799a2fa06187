import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { createSseEventSplitter, type SseMessage } from '../../shared/sse/sse-event-splitter.ts';
import { chunksOf, splitSseText } from '../support/sse-fixtures.ts';

const fixturesFolder = fileURLToPath(new URL('../fixtures/', import.meta.url));

async function recordedStreams(): Promise<string[]> {
  const entries = await readdir(fixturesFolder, { recursive: true });
  return entries.filter((entry) => entry.endsWith('.sse')).map((entry) => join(fixturesFolder, entry));
}

/** What eventsource-parser makes of the whole text at once: the reference for the events' fields. */
function referenceMessages(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  const parser = createParser({ onEvent: (event) => messages.push({ event: event.event, data: event.data }) });
  parser.feed(text);
  parser.feed('\n\n');
  return messages;
}

function split(bytes: Uint8Array, chunkSize: number) {
  const splitter = createSseEventSplitter();
  const events = chunksOf(bytes, chunkSize).flatMap((chunk) => splitter.push(chunk));
  return [...events, ...splitter.end()];
}

describe('splitting an SSE byte stream into its events', () => {
  it('keeps every byte of every recorded stream and reads the same events, however the stream is split', async () => {
    const files = await recordedStreams();
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const bytes = new Uint8Array(await readFile(file));
      const expected = referenceMessages(new TextDecoder().decode(bytes));
      for (const chunkSize of [1, 2, 3, 7, 13, 64, bytes.length]) {
        const events = split(bytes, chunkSize);
        const where = `${relative(fixturesFolder, file)} in pieces of ${chunkSize}`;
        expect(Buffer.concat(events.map((event) => event.bytes)).equals(bytes), where).toBe(true);
        expect(
          events.flatMap((event) => (event.message ? [event.message] : [])),
          where,
        ).toEqual(expected);
      }
    }
  });

  it('ends an event at a blank line of any line-end form, and keeps the line ends with the event', () => {
    const text = 'data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r\n\n';
    expect(splitSseText(text, 1).map((event) => new TextDecoder().decode(event.bytes))).toEqual([
      'data: a\n\n',
      'data: b\r\n\r\n',
      'data: c\r\r',
      'data: d\r\n\n',
    ]);
  });

  it('hands over comments and blank lines as events without fields, so a pass-through still sends them', () => {
    const events = splitSseText(': keep-alive\n\n\nevent: ping\ndata: {}\n\n', 5);
    expect(events.map((event) => event.message)).toEqual([undefined, undefined, { event: 'ping', data: '{}' }]);
  });

  it('joins the lines of a multi-line data field, and reads a last event that lacks its blank line', () => {
    expect(splitSseText('data: one\ndata: two\n\ndata: tail', 4).map((event) => event.message)).toEqual([
      { event: undefined, data: 'one\ntwo' },
      { event: undefined, data: 'tail' },
    ]);
  });

  it('never splits a multi-byte character, whatever piece it arrived in', () => {
    const text = 'data: {"text":"żółw 🐢 亀"}\n\n';
    for (const chunkSize of [1, 2, 3]) {
      expect(splitSseText(text, chunkSize).map((event) => event.message?.data)).toEqual(['{"text":"żółw 🐢 亀"}']);
    }
  });
});
