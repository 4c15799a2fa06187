import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How long the local host keeps reading a refused body after its answer is on the wire (docs/local-host.md).
 * `maxBytes` is well above the bodies a client may plausibly send by mistake (a 20 MB file, ten times the default
 * limit): a client that writes its whole body before it reads (curl, most synchronous clients) sees the answer
 * only if the body ends before the bound, so a bound under the body cuts exactly those clients off. `maxMs`
 * (nginx's `lingering_time`) and `idleMs` (its `lingering_timeout`) cut off a client that sends forever or stalls.
 */
export interface LingeringBounds {
  maxBytes: number;
  maxMs: number;
  idleMs: number;
}

export const defaultLingeringBounds: LingeringBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000, idleMs: 5_000 };

/**
 * Answers a request whose body is refused unread (over the limit) so that the client can read the answer: the
 * answer is written whole (with its length, and `connection: close`), then the rest of the body is read and
 * dropped chunk by chunk (nothing kept: memory stays flat) until it ends or a bound is passed, and only then is the
 * connection closed. Closing at once, as Node does after an answer marked `close`, resets the connection under a
 * client that is still writing, which then reports a write error instead of the answer (a lingering close, as
 * nginx does). The response is ended only after the discard: Node closes a `close` connection when it ends.
 */
export function answerThenDiscardBody(
  request: IncomingMessage,
  response: ServerResponse,
  answer: { statusCode: number; headers: Record<string, string>; body: string },
  bounds: LingeringBounds = defaultLingeringBounds,
): void {
  response.writeHead(answer.statusCode, {
    ...answer.headers,
    'content-length': String(Buffer.byteLength(answer.body)),
    connection: 'close',
  });
  response.write(answer.body);
  if (request.readableEnded) {
    response.end();
    return;
  }
  let discarded = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const stop = (cut: boolean) => {
    if (stopped) return;
    stopped = true;
    clearTimeout(totalTimer);
    clearTimeout(idleTimer);
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('close', onClose);
    request.off('error', onClose);
    // Past a bound the client is cut off mid-body; at the body's end everything was read, so the close is clean.
    if (cut) response.destroy();
    else response.end();
  };
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop(true), bounds.idleMs);
    idleTimer.unref();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bounds.maxBytes) stop(true);
    else armIdle();
  };
  const onEnd = () => stop(false);
  const onClose = () => stop(true);
  const totalTimer = setTimeout(() => stop(true), bounds.maxMs);
  totalTimer.unref();
  armIdle();
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('close', onClose);
  request.on('error', onClose);
  request.resume();
}
