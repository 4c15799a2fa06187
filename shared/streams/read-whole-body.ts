import type { Readable } from 'node:stream';

/**
 * Collects a Node readable's whole body: the client's request on the local host, an upstream's whole answer.
 * Resolves `undefined` as soon as more than `limitBytes` has arrived (the rest is left unread, the stream paused);
 * rejects when the stream breaks off before its end, with its own error or else `brokenOff`. Events rather than an
 * async iterator: a body is mostly one chunk, and the iterator costs a promise and an end-of-stream watcher per
 * read.
 */
export function readWholeBody(readable: Readable, options: { brokenOff: string }): Promise<Buffer>;
export function readWholeBody(
  readable: Readable,
  options: { limitBytes: number; brokenOff: string },
): Promise<Buffer | undefined>;
export function readWholeBody(
  readable: Readable,
  options: { limitBytes?: number; brokenOff: string },
): Promise<Buffer | undefined> {
  if (readable.readableEnded) return Promise.resolve(Buffer.alloc(0));
  const limitBytes = options.limitBytes ?? Number.POSITIVE_INFINITY;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      readable.off('data', onData);
      readable.off('end', onEnd);
      readable.off('error', onError);
      readable.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      stop();
      readable.pause();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => onError(readable.errored ?? new Error(options.brokenOff));
    readable.on('data', onData);
    readable.on('end', onEnd);
    readable.on('error', onError);
    readable.on('close', onClose);
  });
}
