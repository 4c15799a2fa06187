import type { StreamFailure } from '../streams/event-transformer.ts';

/**
 * How a translated stream ends when the upstream's stream does not end as its wire says it should; every stream
 * translator ends its client's stream with these, in the client wire's own error shape.
 */

/** The upstream's stream ended with neither its end marker nor a finish reason: the answer may be cut short. */
export const incompleteUpstreamStream: StreamFailure = {
  code: 'upstream_stream_incomplete',
  message: 'The upstream stream ended before the answer was complete.',
};

/** What an upstream error event that gives no message of its own is told to the client as. */
export const upstreamStreamFailedMessage = 'The upstream provider failed during the stream.';
