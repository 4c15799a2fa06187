import { createSseEventSplitter } from '../sse/sse-event-splitter.ts';
import { type EventTransformer, runTransformer } from '../streams/event-transformer.ts';
import type { ClientChunk, RelayedEvent } from '../streams/relayed-event.ts';
import type { UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import type { UsageReport } from '../wires/usage-report.ts';
import { upstreamTimeoutReason } from './dispatch-upstream.ts';

export interface StreamEnding {
  /** The upstream stream reached its end without reporting an error, and the client did not go away. */
  completed: boolean;
  usage: UsageReport | undefined;
  /** A fault of the gateway's own while it relayed (a translator that threw): the stream ended there. */
  fault?: unknown;
}

export interface RelayOptions<Event> {
  upstream: ReadableStream<Uint8Array>;
  /** How the upstream's events are read (once each), which of them report a failure, and where usage is. */
  upstreamWire: Pick<UpstreamWireFormat<unknown, Event>, 'parseEvent' | 'isFailure' | 'createUsageReader'>;
  /** What the client receives of each event: its own bytes (a pass-through) or its translation. */
  toClient: EventTransformer<RelayedEvent<Event>, ClientChunk>;
  /** The closing event in the client's wire, sent when the upstream fails mid-stream. */
  failureEvent: (reason: 'interrupted' | 'timeout') => string;
  idleTimeoutMs: number;
  /**
   * Aborted when the whole request must end: the stream is cut there by this signal's own timer, whether or not
   * the client is reading (a client that stops reading must not hold the upstream open).
   */
  deadline: AbortSignal;
  abortUpstream: (reason: unknown) => void;
}

/**
 * Relays an SSE stream as it arrives. Each upstream event is split from the bytes with its own bytes kept, read
 * once into its wire's typed event, and that one typed event is what the usage reader, the failure check and
 * the client side (a pass-through's filter, or a translation and the client wire's encoder) all read.
 *
 * The stream is pull-based with no buffer of its own (highWaterMark 0): the next upstream chunk is read only when
 * the client has taken what the last one produced, so a slow client slows the upstream instead of filling
 * memory, and the relay never holds more than the events of one upstream chunk. The idle time-out runs only
 * while the relay waits on the upstream, never while it waits on the client; the request deadline runs always, and
 * when it passes the upstream is aborted and the client's stream ends with the time-out event after whatever it
 * has not read yet.
 */
export function relayEventStream<Event>(options: RelayOptions<Event>): {
  body: ReadableStream<Uint8Array>;
  ended: Promise<StreamEnding>;
} {
  const reader = options.upstream.getReader();
  const splitter = createSseEventSplitter();
  const usageReader = options.upstreamWire.createUsageReader();
  // The upstream's own error event is relayed like any other (translated, where the route translates), but the
  // answer it ends is not complete.
  let upstreamReportedFailure = false;
  let pending: ClientChunk[] = [];
  const client = runTransformer(options.toClient, (chunk) => pending.push(chunk));

  const relay = (rawEvents: ReturnType<typeof splitter.push>) => {
    for (const raw of rawEvents) {
      const event = raw.message ? options.upstreamWire.parseEvent(raw.message) : undefined;
      if (event !== undefined) {
        usageReader.push(event);
        if (options.upstreamWire.isFailure(event)) upstreamReportedFailure = true;
      }
      client.push({ event, bytes: raw.bytes, data: raw.message?.data });
    }
  };
  const takePending = (): Uint8Array | undefined => {
    const parts = pending;
    pending = [];
    return joinChunks(parts);
  };

  let finish: (ending: StreamEnding) => void = () => {};
  const ended = new Promise<StreamEnding>((resolve) => {
    let done = false;
    finish = (ending) => {
      if (done) return;
      done = true;
      resolve(ending);
    };
  });

  let output: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** The client's stream is closed (or cancelled): nothing more may be written to it. */
  let closed = false;
  const onDeadline = () => close('timeout', upstreamTimeoutReason);
  /** Ends the client's stream once: with the wire's failure event when the upstream did not finish the answer. */
  function close(failure: 'interrupted' | 'timeout' | undefined, abortReason?: unknown, fault?: unknown): void {
    if (closed) return;
    closed = true;
    options.deadline.removeEventListener('abort', onDeadline);
    if (abortReason !== undefined) {
      options.abortUpstream(abortReason);
      reader.cancel(abortReason).catch(() => {});
    }
    if (failure !== undefined) output?.enqueue(Buffer.from(options.failureEvent(failure)));
    output?.close();
    finish({
      completed: failure === undefined && !upstreamReportedFailure,
      usage: usageReader.result(),
      ...(fault === undefined ? {} : { fault }),
    });
  }

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        output = controller;
        if (options.deadline.aborted) onDeadline();
        else options.deadline.addEventListener('abort', onDeadline, { once: true });
      },
      async pull(controller) {
        while (!closed) {
          const idle = setTimeout(() => options.abortUpstream(upstreamTimeoutReason), options.idleTimeoutMs);
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            const timedOut = error === upstreamTimeoutReason || (error as Error)?.cause === upstreamTimeoutReason;
            close(timedOut ? 'timeout' : 'interrupted');
            return;
          } finally {
            clearTimeout(idle);
          }
          // The deadline may have ended the stream while this read was waiting.
          if (closed) return;
          try {
            if (chunk.done) {
              // Some engines omit the blank line after the last event; the splitter still hands it over.
              relay(splitter.end());
              client.end();
            } else {
              relay(splitter.push(chunk.value));
            }
          } catch (fault) {
            // A fault of the gateway's own (a translator that threw): the client's stream ends as interrupted.
            pending = [];
            close('interrupted', fault, fault);
            return;
          }
          const bytes = takePending();
          if (bytes) controller.enqueue(bytes);
          if (chunk.done) {
            close(undefined);
            return;
          }
          if (bytes) return;
        }
      },
      cancel(reason) {
        if (closed) return;
        closed = true;
        options.deadline.removeEventListener('abort', onDeadline);
        options.abortUpstream(reason);
        finish({ completed: false, usage: usageReader.result() });
      },
    },
    { highWaterMark: 0 },
  );
  return { body, ended };
}

/** One chunk for the client: an upstream chunk's bytes as they are when nothing else was written. */
function joinChunks(parts: readonly ClientChunk[]): Uint8Array | undefined {
  if (parts.length === 0) return undefined;
  const [only] = parts;
  if (parts.length === 1 && only !== undefined) return typeof only === 'string' ? Buffer.from(only) : only;
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
