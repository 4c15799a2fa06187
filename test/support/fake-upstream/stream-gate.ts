import { EventEmitter, once } from 'node:events';

export interface StreamGateOptions {
  /** Chunks allowed out before the first `release`; 1 lets a test see chunk 1 arrive while chunk 2 is held. */
  initiallyReleased?: number;
}

/**
 * Holds a reply's chunks until the test releases them, one at a time or all at once, so a test can prove that
 * the gateway delivered one chunk before the upstream had sent the next.
 */
export class StreamGate {
  private permits: number;
  private sent = 0;
  private readonly changes = new EventEmitter();

  constructor(options: StreamGateOptions = {}) {
    this.permits = options.initiallyReleased ?? 1;
  }

  /** Chunks that have reached the socket so far. */
  get chunksSent(): number {
    return this.sent;
  }

  release(count = 1): void {
    this.permits += count;
    this.changes.emit('change');
  }

  releaseAll(): void {
    this.release(Number.POSITIVE_INFINITY);
  }

  /** Resolves once `count` chunks have reached the socket. */
  async waitForChunksSent(count: number, timeoutMilliseconds = 5_000): Promise<void> {
    const signal = AbortSignal.timeout(timeoutMilliseconds);
    while (this.sent < count) {
      try {
        await once(this.changes, 'change', { signal });
      } catch {
        throw new Error(`the gate saw ${this.sent} of ${count} chunks sent within ${timeoutMilliseconds} ms`);
      }
    }
  }

  /** For the server: waits for a permit to send the next chunk; false when the exchange ended meanwhile. */
  async takePermit(signal: AbortSignal): Promise<boolean> {
    while (this.permits <= 0) {
      if (signal.aborted) return false;
      try {
        await once(this.changes, 'change', { signal });
      } catch {
        return false;
      }
    }
    this.permits -= 1;
    return true;
  }

  /** For the server: a chunk has reached the socket. */
  recordSent(): void {
    this.sent += 1;
    this.changes.emit('change');
  }
}

export function createStreamGate(options?: StreamGateOptions): StreamGate {
  return new StreamGate(options);
}
