import { Readable } from 'node:stream';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { Message } from '@smithy/types';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { parseJson } from '../parse-json.ts';
import { messagesErrorJson } from './bedrock-errors.ts';

/**
 * Bedrock's binary event stream (`application/vnd.amazon.eventstream`) as the messages SSE stream it carries. Each
 * frame is checked by @smithy/eventstream-codec (its prelude and message CRCs; a bad one breaks the stream off as
 * interrupted); only the frame boundaries are read here, from each frame's length prefix, since the codec decodes
 * whole frames. A `chunk` event's `bytes` is base64 JSON of one messages stream event: it becomes that event. An
 * exception frame (`:message-type: exception`, or `error`) becomes the messages `error` event, which ends the
 * client's stream with its wire's error and marks the answer incomplete.
 */

const codec = new EventStreamCodec(toUtf8, fromUtf8);
/** A frame's prelude (total and header lengths, prelude CRC) and its closing CRC. */
const smallestFrame = 16;
/** Bedrock's frames carry one event each; a length past this is a corrupt prelude, not a frame to wait for. */
const largestFrame = 16 * 1024 * 1024;

/** The frames of a body, each whole, as the codec decodes them; a torn or oversized frame throws. */
async function* framesOf(body: Readable): AsyncGenerator<Uint8Array> {
  let buffered: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    buffered = buffered.length === 0 ? (chunk as Buffer) : Buffer.concat([buffered, chunk as Buffer]);
    while (buffered.length >= 4) {
      const length = buffered.readUInt32BE(0);
      if (length < smallestFrame || length > largestFrame) throw new Error(`an event-stream frame of ${length} bytes`);
      if (buffered.length < length) break;
      yield buffered.subarray(0, length);
      buffered = buffered.subarray(length);
    }
  }
  if (buffered.length > 0) throw new Error('the event stream ended inside a frame');
}

/** Each frame of the body decoded (its CRCs checked): the messages of an event stream, in order. */
export async function* eventStreamMessages(body: Readable): AsyncGenerator<Message> {
  for await (const frame of framesOf(body)) yield codec.decode(frame);
}

/** A string header of a decoded frame (`:message-type`, `:event-type`, `:exception-type`…). */
export function headerText(message: Message, name: string): string | undefined {
  const header = message.headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

function sseEvent(json: string): string | undefined {
  const type = (parseJson(json) as { type?: unknown } | undefined)?.type;
  if (typeof type !== 'string' || !/^[a-z_]+$/.test(type)) return undefined;
  return `event: ${type}\ndata: ${json}\n\n`;
}

/** One decoded frame as SSE text; `undefined` for a frame that carries no messages event. */
export function sseOfFrame(message: Message): string | undefined {
  const kind = headerText(message, ':message-type');
  const body = toUtf8(message.body);
  if (kind === 'exception' || kind === 'error') {
    const exception = headerText(message, ':exception-type') ?? headerText(message, ':error-code');
    const said = (parseJson(body) as { message?: unknown } | undefined)?.message;
    const text = typeof said === 'string' ? said : headerText(message, ':error-message');
    return `event: error\ndata: ${messagesErrorJson(exception, undefined, text?.slice(0, 2_000))}\n\n`;
  }
  if (kind !== 'event' || headerText(message, ':event-type') !== 'chunk') return undefined;
  const bytes = (parseJson(body) as { bytes?: unknown } | undefined)?.bytes;
  if (typeof bytes !== 'string') return undefined;
  return sseEvent(Buffer.from(bytes, 'base64').toString('utf8'));
}

async function* sseOf(body: Readable, eventOf: (message: Message) => string | undefined): AsyncGenerator<Buffer> {
  for await (const message of eventStreamMessages(body)) {
    const event = eventOf(message);
    if (event !== undefined) yield Buffer.from(event);
  }
}

/**
 * The stream as SSE bytes, each frame written by `eventOf` (the messages events of InvokeModel's `chunk` frames by
 * default). Destroying it stops reading the upstream body; the body's errors end it alike.
 */
export function bedrockEventStreamAsSse(
  body: Readable,
  eventOf: (message: Message) => string | undefined = sseOfFrame,
): Readable {
  const sse = Readable.from(sseOf(body, eventOf), { objectMode: false });
  sse.once('close', () => {
    if (!body.destroyed) body.destroy();
  });
  return sse;
}
