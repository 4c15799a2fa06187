import { type EventRewriter, type StreamEvent, serializeEvent } from '../wires/usage-report.ts';

export { type EventRewriter, serializeEvent };

/** A rewriter that passes every event on except the ones `drop` names. */
export function droppingRewriter(drop: (event: StreamEvent) => boolean): EventRewriter {
  return { push: (event) => (drop(event) ? '' : serializeEvent(event)), end: () => '' };
}
