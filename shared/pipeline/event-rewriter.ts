import type { StreamEvent } from '../providers/usage-report.ts';

/**
 * Re-frames an upstream's stream events for the client, one event at a time: a filter (a usage chunk the client
 * did not ask for) or a translation into the client's wire. `push` returns the SSE text to send now (possibly
 * empty); `end` what closes the stream when the upstream ends normally.
 */
export interface EventRewriter {
  push(event: StreamEvent): string;
  end(): string;
}

export function serializeEvent(event: StreamEvent): string {
  const data = event.data
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${event.event ? `event: ${event.event}\n` : ''}${data}\n`;
}

/** A rewriter that passes every event on except the ones `drop` names. */
export function droppingRewriter(drop: (event: StreamEvent) => boolean): EventRewriter {
  return { push: (event) => (drop(event) ? '' : serializeEvent(event)), end: () => '' };
}
