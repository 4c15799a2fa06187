import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Deadline } from '../clock/monotonic-deadline.ts';
import type { StreamUsageReader, UsageReport } from '../wires/usage-report.ts';
import { upstreamTimeoutReason } from './dispatch-upstream.ts';
import type { EventRewriter } from './event-rewriter.ts';
import { isUpstreamErrorEvent } from './upstream-error-event.ts';

export interface StreamEnding {
  /** The upstream stream reached its end without reporting an error, and the client did not go away. */
  completed: boolean;
  usage: UsageReport | undefined;
}

export interface RelayOptions {
  upstream: ReadableStream<Uint8Array>;
  usageReader: StreamUsageReader;
  /** Re-frames events for the client (a filter or a translation); without one, the bytes pass unchanged. */
  rewriter?: EventRewriter | undefined;
  /** The closing event in the client's wire, sent when the upstream fails mid-stream. */
  errorEvent: (reason: 'interrupted' | 'timeout') => string;
  idleTimeoutMs: number;
  /** When the whole request must end, stream included; the stream is cut there. */
  deadline: Deadline;
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
  let pendingText = '';
  // The upstream's own error event is relayed as it is (it is already in the client's wire), but the answer
  // it ends is not complete.
  let upstreamReportedError = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      const event = { event: message.event, data: message.data };
      options.usageReader.push(event);
      if (isUpstreamErrorEvent(event)) upstreamReportedError = true;
      if (options.rewriter) pendingText += options.rewriter.push(event);
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
  const takePendingText = () => {
    const text = pendingText;
    pendingText = '';
    return text;
  };
  const end = (completed: boolean) => finish({ completed, usage: options.usageReader.result() });

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
            const rest = takePendingText() + (options.rewriter?.end() ?? '');
            if (rest.length > 0) controller.enqueue(encoder.encode(rest));
            controller.close();
            end(!upstreamReportedError);
            return;
          }
          parser.feed(decoder.decode(chunk.value, { stream: true }));
          if (!options.rewriter) {
            controller.enqueue(chunk.value);
            return;
          }
          const text = takePendingText();
          if (text.length > 0) {
            controller.enqueue(encoder.encode(text));
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
