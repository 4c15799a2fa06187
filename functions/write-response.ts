import type { Writable } from 'node:stream';
import type { Deadline } from '../shared/clock/monotonic-deadline.ts';
import type { GatewayResponse } from '../shared/http/gateway-request.ts';

/**
 * Writes a response to the runtime's response stream, as a function URL in RESPONSE_STREAM mode expects it: the
 * status and headers through `awslambda.HttpResponseStream.from` (the runtime writes them as the prelude before the
 * first byte), then the body — a whole one in one write, a stream chunk by chunk as it is produced, each next chunk
 * read only once the stream took the last (backpressure). Resolves when the runtime has the whole response; rejects
 * when the stream breaks off (the client went away, or `giveUpBy` passed with the response still unread), after
 * cancelling the body, which aborts its upstream.
 *
 * This is all a streaming entry needs of a framework, and it is written here rather than left to middy's
 * `streamifyResponse`, which wraps every body in a Node stream and a `pipeline` (an AbortController, an
 * AbortError and end-of-stream listeners per request: about a tenth of a small request's CPU on the local host).
 */
export async function writeResponse(
  responseStream: Writable,
  response: Omit<GatewayResponse, 'afterResponse'>,
  giveUpBy?: Deadline,
) {
  const stream = awslambda.HttpResponseStream.from(responseStream, {
    statusCode: response.statusCode,
    headers: response.headers,
    ...(response.cookies && response.cookies.length > 0 ? { cookies: response.cookies } : {}),
  });
  const giveUp = giveUpBy && breakOffWhenUnread(responseStream, giveUpBy);
  try {
    const { body } = response;
    if (typeof body === 'string') {
      // Written even when empty: the first write is what sends the prelude (`end(chunk)` would bypass it).
      stream.write(body);
      return await ended(stream);
    }
    let wrote = false;
    // `for await` ends the iteration (`return`) when a write fails: the body's source stops, and a relay aborts its
    // upstream.
    for await (const chunk of body) {
      wrote = true;
      if (!stream.write(chunk)) await drained(stream);
    }
    if (!wrote) stream.write('');
    await ended(stream);
  } finally {
    clearTimeout(giveUp);
  }
}

/**
 * The writer is the one part that waits on the client (the relay's timers only ever wait on the upstream), so a
 * client that never reads again is given up on here: once `giveUpBy` passes with the response still undelivered,
 * the stream is broken off, which rejects the write under way and frees the connection.
 */
function breakOffWhenUnread(responseStream: Writable, giveUpBy: Deadline): NodeJS.Timeout {
  const timer = setTimeout(() => {
    if (!responseStream.writableFinished)
      responseStream.destroy(new Error('the client did not take the response in time'));
  }, giveUpBy.remainingMs());
  timer.unref();
  return timer;
}

/** Ends the stream; resolves once everything written is delivered, rejects if it broke off. */
function ended(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
  });
}

/** Resolves once the stream takes writes again; rejects if it breaks off first. */
function drained(stream: Writable): Promise<void> {
  if (stream.destroyed) return Promise.reject(stream.errored ?? new Error('the response stream was closed'));
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      stream.off('error', onError);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onError = (error: Error) => settle(error);
    const onClose = () => settle(stream.errored ?? new Error('the response stream was closed'));
    stream.on('drain', onDrain);
    stream.on('close', onClose);
    stream.on('error', onError);
  });
}
