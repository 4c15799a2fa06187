import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import type { StreamEvent, StreamUsageReader, UsageReport } from '../../shared/wires/usage-report.ts';

const fixturesFolder = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixturePath(folder: string, name: string): string {
  return `${fixturesFolder}${folder}/${name}`;
}

export async function readTextFixture(wire: string, name: string): Promise<string> {
  return readFile(fixturePath(wire, name), 'utf8');
}

export async function readJsonFixture(wire: string, name: string): Promise<unknown> {
  return JSON.parse(await readTextFixture(wire, name));
}

/**
 * Parses SSE text the way the relay does: through eventsource-parser, fed in pieces, because network chunks
 * split events anywhere (inside a line, between `\r` and `\n`). A trailing blank line is fed at the end so a
 * stream whose last event lacks its closing blank line still yields that event.
 */
export function parseSseText(text: string, chunkSize = 37): StreamEvent[] {
  const events: StreamEvent[] = [];
  const parser = createParser({
    onEvent(event) {
      events.push({ event: event.event, data: event.data });
    },
  });
  for (let start = 0; start < text.length; start += chunkSize) {
    parser.feed(text.slice(start, start + chunkSize));
  }
  parser.feed('\n\n');
  return events;
}

export async function parseSseFixture(wire: string, name: string): Promise<StreamEvent[]> {
  return parseSseText(await readTextFixture(wire, name));
}

/** Replays a recorded stream through a fresh usage reader, as the relay would while passing the bytes on. */
export async function readStreamUsage(
  wire: string,
  name: string,
  createReader: () => StreamUsageReader,
): Promise<UsageReport | undefined> {
  const reader = createReader();
  for (const event of await parseSseFixture(wire, name)) reader.push(event);
  return reader.result();
}
