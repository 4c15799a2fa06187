import type { Readable } from 'node:stream';
import { createSseEventSplitter } from '../sse/sse-event-splitter.ts';
import { type EventTransformer, runTransformer } from '../streams/event-transformer.ts';
import type { ClientChunk, RelayedEvent } from '../streams/relayed-event.ts';
import type { UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import type { UsageReport } from '../wires/usage-report.ts';
import { upstreamTimeoutReason } from './dispatch-upstream.ts';

export interface StreamEnding {
  /**
   * The upstream sent the event its wire ends a complete answer with, reported no error, and the client did not
   * go away first. A stream whose body ended (or broke) before that event was cut off: not completed.
   */
  completed: boolean;
  usage: UsageReport | undefined;
  /** A fault of the gateway's own while it relayed (a translator that threw): the stream ended there. */
  fault?: unknown;
}

export interface RelayOptions<Event> {
  /** The upstream's body as Node's readable of the answer (shared/net/upstream-transport.ts). */
  upstream: Readable;
  /** How the upstream's events are read (once each), which of them report a failure, and where usage is. */
  upstreamWire: Pick<
    UpstreamWireFormat<unknown, Event>,
    'parseEvent' | 'isFailure' | 'endsAnswer' | 'createUsageReader'
  >;
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
  /**
   * Sees each upstream event's data as it came (telemetry's first chunk and answer summary); absent, nothing is
   * called.
   */
  observeEvent?: ((data: string) => void) | undefined;
}

/**
 * Relays an SSE stream as it arrives. Each upstream event is split from the bytes with its own bytes kept, read
 * once into its wire's typed event, and that one typed event is what the usage reader, the failure check and
 * the client side (a pass-through's filter, or a translation and the client wire's encoder) all read.
 *
 * The client's body is an async iterator, pulled by whoever writes the response (functions/write-response.ts),
 * with no buffer of its own: the next upstream chunk is read only when the client has taken what the last one
 * produced, so a slow client slows the upstream instead of filling memory, and the relay never holds more than the
 * events of one upstream chunk. The upstream is read from Node's own stream of the answer and the client is given
 * plain chunks: no web stream sits on either side, which would cost a few promise turns and objects per chunk. The
 * idle time-out runs only while the relay waits on the upstream, never while it waits on the client; the request
 * deadline runs always, and when it passes the upstream is aborted and the client's stream ends with the time-out
 * event after whatever it has not read yet. Ending the iteration early (`return`, as `for await` does when the
 * writer fails because the client left) aborts the upstream.
 *
 * The answer is whole only once the upstream sent its wire's closing event (`endsAnswer`). A body that ends before
 * it — a provider or proxy closing the stream early — is cut off like a broken connection: the client's stream
 * ends with the failure event (never with the closing events a translator would add for a finished answer), and
 * the request is not completed. A connection that breaks after it loses nothing of the answer.
 */
export function relayEventStream<Event>(options: RelayOptions<Event>): {
  body: AsyncIterableIterator<Uint8Array>;
  ended: Promise<StreamEnding>;
} {
  const { upstream } = options;
  const splitter = createSseEventSplitter();
  const usageReader = options.upstreamWire.createUsageReader();
  // The upstream's own error event is relayed like any other (translated, where the route translates), but the
  // answer it ends is not complete.
  let upstreamReportedFailure = false;
  /** The upstream's closing event has come: the answer is whole, whatever happens to the connection after it. */
  let answerEnded = false;
  let pending: ClientChunk[] = [];
  const client = runTransformer(options.toClient, (chunk) => pending.push(chunk));

  const relay = (rawEvents: ReturnType<typeof splitter.push>) => {
    for (const raw of rawEvents) {
      const event = raw.message ? options.upstreamWire.parseEvent(raw.message) : undefined;
      if (event !== undefined) {
        usageReader.push(event);
        if (raw.message) options.observeEvent?.(raw.message.data);
        if (options.upstreamWire.isFailure(event)) upstreamReportedFailure = true;
        else if (options.upstreamWire.endsAnswer(event)) answerEnded = true;
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

  /** What the client is still to receive after the relay closed: the failure event, or the last events. */
  const leftOver: Uint8Array[] = [];
  /** The client's stream is closed (or cancelled): nothing more is read from the upstream. */
  let closed = false;
  /** One timer for the whole stream, re-armed for each wait on the upstream; it acts only while one runs. */
  let waiting = false;
  const idle = setTimeout(() => {
    if (waiting) options.abortUpstream(upstreamTimeoutReason);
  }, options.idleTimeoutMs);
  const onDeadline = () => close('timeout', upstreamTimeoutReason);
  if (options.deadline.aborted) onDeadline();
  else options.deadline.addEventListener('abort', onDeadline, { once: true });

  /** Ends the client's stream once: with the wire's failure event when the upstream did not finish the answer. */
  function close(failure: 'interrupted' | 'timeout' | undefined, abortReason?: unknown, fault?: unknown): void {
    if (closed) return;
    closed = true;
    clearTimeout(idle);
    options.deadline.removeEventListener('abort', onDeadline);
    if (abortReason !== undefined) {
      options.abortUpstream(abortReason);
      upstream.destroy();
    }
    if (failure !== undefined) leftOver.push(Buffer.from(options.failureEvent(failure)));
    finish({
      completed: failure === undefined && answerEnded && !upstreamReportedFailure,
      usage: usageReader.result(),
      ...(fault === undefined ? {} : { fault }),
    });
  }

  /**
   * The read waiting on the upstream, if one is. The upstream's events are heard for the whole stream by one set of
   * listeners, rather than by listeners added and removed around every wait: a stream waits once per chunk.
   */
  let waiter: { resolve: (chunk: Buffer | null) => void; reject: (error: unknown) => void } | undefined;
  const wake = (settle: (read: NonNullable<typeof waiter>) => void) => {
    const read = waiter;
    if (!read) return;
    waiter = undefined;
    waiting = false;
    settle(read);
  };
  upstream.on('readable', () => {
    if (!waiter) return;
    const next = upstream.read() as Buffer | null;
    if (next !== null) wake((read) => read.resolve(next));
  });
  upstream.on('end', () => wake((read) => read.resolve(null)));
  upstream.on('error', (error: Error) => wake((read) => read.reject(error)));
  upstream.on('close', () => {
    if (!upstream.readableEnded) {
      wake((read) => read.reject(upstream.errored ?? new Error('the upstream stream was closed')));
    }
  });

  /** The next chunk of the upstream's body, or null at its end; rejects when it breaks off. */
  function readUpstream(): Promise<Buffer | null> {
    const chunk = upstream.read() as Buffer | null;
    if (chunk !== null) return Promise.resolve(chunk);
    if (upstream.readableEnded) return Promise.resolve(null);
    if (upstream.destroyed) return Promise.reject(upstream.errored ?? new Error('the upstream stream was closed'));
    waiting = true;
    idle.refresh();
    return new Promise((resolve, reject) => {
      waiter = { resolve, reject };
    });
  }

  async function next(): Promise<IteratorResult<Uint8Array>> {
    for (;;) {
      const left = leftOver.shift();
      if (left !== undefined) return { value: left, done: false };
      if (closed) return { value: undefined, done: true };
      let chunk: Buffer | null;
      try {
        chunk = await readUpstream();
      } catch (error) {
        if (answerEnded) {
          // The connection broke after the closing event: the answer is whole, so it ends as if the body had.
          chunk = null;
        } else {
          const timedOut = error === upstreamTimeoutReason || (error as Error)?.cause === upstreamTimeoutReason;
          close(timedOut ? 'timeout' : 'interrupted');
          continue;
        }
      }
      // The deadline may have ended the stream while this read was waiting.
      if (closed) continue;
      try {
        if (chunk === null) {
          // Some engines omit the blank line after the last event; the splitter still hands it over.
          relay(splitter.end());
          // A translator ends an answer it has whole (or one the upstream's error event closed); a cut-off one
          // gets the failure event instead, below.
          if (answerEnded || upstreamReportedFailure) client.end();
        } else {
          relay(splitter.push(chunk));
        }
      } catch (fault) {
        // A fault of the gateway's own (a translator that threw): the client's stream ends as interrupted.
        pending = [];
        close('interrupted', fault, fault);
        continue;
      }
      const bytes = takePending();
      if (chunk === null) {
        if (bytes) leftOver.push(bytes);
        close(answerEnded || upstreamReportedFailure ? undefined : 'interrupted');
        continue;
      }
      if (bytes) return { value: bytes, done: false };
    }
  }

  const body: AsyncIterableIterator<Uint8Array> = {
    next,
    async return(reason?: unknown) {
      leftOver.length = 0;
      if (!closed) {
        closed = true;
        clearTimeout(idle);
        options.deadline.removeEventListener('abort', onDeadline);
        options.abortUpstream(reason);
        upstream.destroy();
        finish({ completed: false, usage: usageReader.result() });
      }
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return body;
    },
  };
  return { body, ended };
}

/** One chunk for the client: an upstream chunk's bytes as they are when nothing else was written. */
function joinChunks(parts: readonly ClientChunk[]): Uint8Array | undefined {
  if (parts.length === 0) return undefined;
  const [only] = parts;
  if (parts.length === 1 && only !== undefined) return typeof only === 'string' ? Buffer.from(only) : only;
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
