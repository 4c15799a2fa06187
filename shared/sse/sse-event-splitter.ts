import { createParser } from 'eventsource-parser';

/** The fields of one server-sent event that the gateway reads. */
export interface SseMessage {
  /** The `event:` name; undefined for an unnamed event. */
  event?: string | undefined;
  data: string;
}

/** One server-sent event as it arrived: its exact bytes, closing blank line included, and its fields. */
export interface RawSseEvent {
  readonly bytes: Uint8Array;
  /** Undefined for a block that dispatches nothing: comments (`: keep-alive`), a lone `retry:` or `id:`. */
  readonly message: SseMessage | undefined;
}

export interface SseEventSplitter {
  /** The events that this chunk completes, in order; the bytes of an unfinished one are held for the next. */
  push(chunk: Uint8Array): RawSseEvent[];
  /** The stream ended: its last event, if it lacked the closing blank line that some engines leave out. */
  end(): RawSseEvent[];
}

const lineFeed = 0x0a;
const carriageReturn = 0x0d;

/**
 * Buffer's indexOf (memchr) on any Uint8Array the upstream's body hands over: several times faster than a
 * Uint8Array's own, without making a Buffer view of each chunk first.
 */
const indexOfByte = (bytes: Uint8Array, byte: number, from: number): number =>
  Buffer.prototype.indexOf.call(bytes, byte, from);

/**
 * Splits an SSE byte stream into its events and keeps each event's own bytes, so a pass-through can forward
 * exactly what the upstream sent while the gateway still reads every event once. Boundaries are found on the
 * bytes — an event ends at a blank line, two line ends in a row, where CRLF, LF and CR each end a line
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream) — so nothing is
 * decoded twice or re-encoded; each finished event's text is then read by eventsource-parser, which knows the
 * field rules (comments, `data:` without a space, multi-line data).
 */
export function createSseEventSplitter(): SseEventSplitter {
  const decoder = new TextDecoder();
  let dispatched: SseMessage | undefined;
  const parser = createParser({
    onEvent(message) {
      dispatched = message;
    },
  });
  /** Bytes of the event in progress that came in earlier chunks. */
  let held: Uint8Array[] = [];
  /** Line ends in a row just before the next byte; a stream starts as if after one, at the start of a line. */
  let lineEndsInARow = 1;
  /** The last byte was a CR: an LF right after it is the second half of the same line end. */
  let afterCarriageReturn = false;
  /** A blank line ended in a CR at the end of a chunk: the event ends after it, or after the LF that follows. */
  let endAfterPossibleLineFeed = false;

  const read = (bytes: Uint8Array, terminated: boolean): RawSseEvent => {
    dispatched = undefined;
    const text = decoder.decode(bytes);
    parser.feed(text);
    // The parser waits after a final CR to see whether an LF follows; nothing does, the event is whole.
    if (text.endsWith('\r')) parser.feed('\n');
    if (!terminated) parser.feed('\n\n');
    return { bytes, message: dispatched };
  };

  // The chunk being split, and where the event in progress starts in it. Kept here rather than in closures made
  // per chunk: `push` runs once per upstream read, so it allocates as little as it can.
  let chunk: Uint8Array = new Uint8Array(0);
  let eventStart = 0;
  let events: RawSseEvent[] = [];

  const endEventAt = (end: number) => {
    // Most upstream reads hold exactly one event: then its bytes are the chunk itself.
    const piece = eventStart === 0 && end === chunk.length ? chunk : chunk.subarray(eventStart, end);
    const bytes = held.length === 0 ? piece : Buffer.concat([...held, piece]);
    held = [];
    eventStart = end;
    lineEndsInARow = 1;
    afterCarriageReturn = false;
    events.push(read(bytes, true));
  };

  return {
    push(bytes) {
      chunk = bytes;
      eventStart = 0;
      events = [];
      let position = 0;
      if (endAfterPossibleLineFeed) {
        endAfterPossibleLineFeed = false;
        endEventAt(chunk[0] === lineFeed ? 1 : 0);
        position = eventStart;
      }
      let nextLineFeed = -1;
      let nextCarriageReturn = -1;
      while (position < chunk.length) {
        if (nextLineFeed !== -2 && nextLineFeed < position) nextLineFeed = indexOfByte(chunk, lineFeed, position);
        if (nextCarriageReturn !== -2 && nextCarriageReturn < position) {
          nextCarriageReturn = indexOfByte(chunk, carriageReturn, position);
        }
        // -2: none left in this chunk, so it is not searched for again.
        if (nextLineFeed === -1) nextLineFeed = -2;
        if (nextCarriageReturn === -1) nextCarriageReturn = -2;
        const lineEnd =
          nextLineFeed < 0
            ? nextCarriageReturn
            : nextCarriageReturn < 0
              ? nextLineFeed
              : Math.min(nextLineFeed, nextCarriageReturn);
        if (lineEnd < 0) {
          lineEndsInARow = 0;
          afterCarriageReturn = false;
          break;
        }
        if (lineEnd > position) {
          lineEndsInARow = 0;
          afterCarriageReturn = false;
        }
        position = lineEnd + 1;
        if (chunk[lineEnd] === lineFeed && afterCarriageReturn) {
          afterCarriageReturn = false;
          continue;
        }
        afterCarriageReturn = chunk[lineEnd] === carriageReturn;
        lineEndsInARow += 1;
        if (lineEndsInARow < 2) continue;
        if (!afterCarriageReturn) endEventAt(position);
        else if (position === chunk.length) endAfterPossibleLineFeed = true;
        else endEventAt(chunk[position] === lineFeed ? position + 1 : position);
        position = Math.max(position, eventStart);
      }
      // A copy: the upstream's chunk is not kept alive by the part of an event it holds.
      if (eventStart < chunk.length) held.push(chunk.slice(eventStart));
      return events;
    },
    end() {
      endAfterPossibleLineFeed = false;
      if (held.length === 0) return [];
      const bytes = Buffer.concat(held);
      held = [];
      const terminated = lineEndsInARow >= 2;
      return [read(bytes, terminated)];
    },
  };
}
