import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { StreamEvent, StreamUsageReader, UsageReport } from '../providers/usage-report.ts';
import { upstreamTimeoutReason } from './dispatch-upstream.ts';

export interface StreamEnding {
  /** The upstream stream reached its end and the client did not go away. */
  completed: boolean;
  usage: UsageReport | undefined;
}

export interface RelayOptions {
  upstream: ReadableStream<Uint8Array>;
  usageReader: StreamUsageReader;
  /** Events the client must not see (such as a usage chunk it did not ask for); when set, events are re-framed. */
  dropEvent?: ((event: StreamEvent) => boolean) | undefined;
  /** The closing event in the client's wire, sent when the upstream fails mid-stream. */
  errorEvent: (reason: 'interrupted' | 'timeout') => string;
  idleTimeoutMs: number;
  abortUpstream: (reason: unknown) => void;
}

const encoder = new TextEncoder();

/**
 * Relays an SSE stream chunk by chunk as it arrives. The stream is pull-based with no buffer of its own
 * (highWaterMark 0): the next upstream chunk is read only when the client has taken the last one, so a slow
 * client slows the upstream instead of filling memory. Usage is read on the side by parsing the same bytes.
 */
export function relayEventStream(options: RelayOptions): {
  body: ReadableStream<Uint8Array>;
  ended: Promise<StreamEnding>;
} {
  const reader = options.upstream.getReader();
  const decoder = new TextDecoder();
  let pendingEvents: StreamEvent[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      const event = { event: message.event, data: message.data };
      options.usageReader.push(event);
      if (options.dropEvent) pendingEvents.push(event);
    },
  });

  let finish: (ending: StreamEnding) => void = () => {};
  const ended = new Promise<StreamEnding>((resolve) => {
    let done = false;
    finish = (ending) => {
      if (done) return;
      done = true;
      resolve(ending);
    };
  });
  const takeKeptEvents = () => {
    const kept = pendingEvents.filter((event) => !options.dropEvent?.(event));
    pendingEvents = [];
    return kept;
  };
  const end = (completed: boolean) => finish({ completed, usage: options.usageReader.result() });

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const idle = setTimeout(() => options.abortUpstream(upstreamTimeoutReason), options.idleTimeoutMs);
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            const timedOut = error === upstreamTimeoutReason || (error as Error)?.cause === upstreamTimeoutReason;
            controller.enqueue(encoder.encode(options.errorEvent(timedOut ? 'timeout' : 'interrupted')));
            controller.close();
            end(false);
            return;
          } finally {
            clearTimeout(idle);
          }
          if (chunk.done) {
            // Some engines omit the blank line after the last event; end it so the usage reader still sees it.
            parser.feed(`${decoder.decode()}\n\n`);
            const kept = takeKeptEvents();
            if (kept.length > 0) controller.enqueue(encoder.encode(kept.map(serializeEvent).join('')));
            controller.close();
            end(true);
            return;
          }
          parser.feed(decoder.decode(chunk.value, { stream: true }));
          if (!options.dropEvent) {
            controller.enqueue(chunk.value);
            return;
          }
          const kept = takeKeptEvents();
          if (kept.length > 0) {
            controller.enqueue(encoder.encode(kept.map(serializeEvent).join('')));
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

function serializeEvent(event: StreamEvent): string {
  const data = event.data
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${event.event ? `event: ${event.event}\n` : ''}${data}\n`;
}
