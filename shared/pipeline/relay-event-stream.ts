import type { Deadline } from '../clock/monotonic-deadline.ts';
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
  /** When the whole request must end, stream included; the stream is cut there. */
  deadline: Deadline;
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
 * while the relay waits on the upstream, never while it waits on the client.
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
  const end = (completed: boolean, fault?: unknown) =>
    finish({ completed, usage: usageReader.result(), ...(fault === undefined ? {} : { fault }) });

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const wait = Math.max(0, Math.min(options.idleTimeoutMs, options.deadline.remainingMs()));
          const idle = setTimeout(() => options.abortUpstream(upstreamTimeoutReason), wait);
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            const timedOut = error === upstreamTimeoutReason || (error as Error)?.cause === upstreamTimeoutReason;
            controller.enqueue(Buffer.from(options.failureEvent(timedOut ? 'timeout' : 'interrupted')));
            controller.close();
            end(false);
            return;
          } finally {
            clearTimeout(idle);
          }
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
            options.abortUpstream(fault);
            reader.cancel(fault).catch(() => {});
            pending = [];
            controller.enqueue(Buffer.from(options.failureEvent('interrupted')));
            controller.close();
            end(false, fault);
            return;
          }
          const bytes = takePending();
          if (chunk.done) {
            if (bytes) controller.enqueue(bytes);
            controller.close();
            end(!upstreamReportedFailure);
            return;
          }
          if (bytes) {
            controller.enqueue(bytes);
            return;
          }
        }
      },
      cancel(reason) {
        options.abortUpstream(reason);
        end(false);
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
