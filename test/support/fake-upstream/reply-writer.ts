import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReplyPacing } from './behaviour.ts';

/** One exchange as the writer sees it. */
export interface ReplyTarget {
  response: ServerResponse;
  /** Aborted when the connection closes before the reply finished: stop writing, stop waiting. */
  abandoned: AbortSignal;
  /** Drops the connection on purpose, so that its closing is not taken for the client's. */
  destroySocket(): void;
  recordChunkSent(): void;
}

export async function writeWholeBody(
  target: ReplyTarget,
  status: number,
  body: string,
  pacing: ReplyPacing,
  headers: Record<string, string> = {},
): Promise<void> {
  if (!(await waitForTurn(target, pacing, 0))) return;
  if (pacing.resetAfterChunks === 0) return target.destroySocket();
  const bytes = Buffer.from(body, 'utf8');
  target.response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(bytes.byteLength),
    ...headers,
  });
  if (pacing.stallAfterHeaders) {
    target.response.flushHeaders();
    return;
  }
  if (pacing.resetAfterChunks !== undefined) {
    // A body cut in half: its declared length never arrives.
    if (await writeChunk(target, pacing, bytes.subarray(0, Math.floor(bytes.byteLength / 2)))) target.destroySocket();
    return;
  }
  if (await writeChunk(target, pacing, bytes)) target.response.end();
}

export async function writeStream(
  target: ReplyTarget,
  contentType: string,
  frames: readonly string[],
  pacing: ReplyPacing,
  headers: Record<string, string> = {},
): Promise<void> {
  if (pacing.resetAfterChunks === 0) return target.destroySocket();
  target.response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', ...headers });
  // Headers leave at once, so a test can see the stream open while its first chunk is still held.
  target.response.flushHeaders();
  for (const [index, frame] of frames.entries()) {
    if (!(await waitForTurn(target, pacing, index))) return;
    if (!(await writeChunk(target, pacing, frame))) return;
    if (pacing.resetAfterChunks === index + 1) return target.destroySocket();
  }
  if (pacing.resetAtEnd) return target.destroySocket();
  target.response.end();
}

async function waitForTurn(target: ReplyTarget, pacing: ReplyPacing, chunkIndex: number): Promise<boolean> {
  const delay = pacing.delayBetweenChunksMilliseconds ?? 0;
  if (chunkIndex > 0 && delay > 0) {
    try {
      await sleep(delay, undefined, { signal: target.abandoned });
    } catch {
      return false;
    }
  }
  if (pacing.gate && !(await pacing.gate.takePermit(target.abandoned))) return false;
  return !target.abandoned.aborted;
}

/** Resolves once the chunk reached the socket, so "chunk 1 was sent" is true when a test is told so. */
function writeChunk(target: ReplyTarget, pacing: ReplyPacing, chunk: string | Uint8Array): Promise<boolean> {
  return new Promise((resolve) => {
    target.response.write(chunk, (error) => {
      if (error) {
        resolve(false);
        return;
      }
      target.recordChunkSent();
      pacing.gate?.recordSent();
      resolve(true);
    });
  });
}
