import { StoreClosedError } from '../store/store-errors.ts';
import type { RollupStore } from '../store/store-port.ts';
import type { ClosedRequest } from '../store/usage-records.ts';

/**
 * Where settlement hands each closed request for the rollups, off the request path. On one machine an in-process
 * folder (`createRollupFolder`) adds them in batches; on AWS the records table's stream does (`foldedByTheStream`).
 */
export interface RollupFolder {
  /** A closed request, handed over once (settlement's gate makes it once); in the rollups by the next flush. */
  add(closed: ClosedRequest): void;
  /** Resolves once everything handed over before the call is in the rollups (or the flush failed). */
  flush(): Promise<void>;
  /** How long the oldest request not yet in the rollups has waited, in monotonic milliseconds; 0 when none. */
  oldestWaitMs(): number;
  /** Flushes what is waiting and stops the timer; nothing may be added afterwards. */
  close(): Promise<void>;
}

/** Schedules `callback` after `delayMs`; returns what cancels it. */
export type Schedule = (callback: () => void, delayMs: number) => () => void;

export interface RollupFolderOptions {
  rollups: Pick<RollupStore, 'add'>;
  /** The longest a handed-over request waits before its flush starts: the bound on how late a rollup is. */
  flushIntervalMs: number;
  /** Flush at once when this many requests wait, whatever the interval. */
  maxPending?: number;
  /** Monotonic milliseconds (`performance.now` by default); a test drives its own. */
  clock?: () => number;
  /** The timer (`setTimeout`, unref'd, by default); a test triggers flushes itself. */
  schedule?: Schedule;
  onError: (error: unknown) => void;
}

const defaultSchedule: Schedule = (callback, delayMs) => {
  const timer = setTimeout(callback, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * The in-process folder: closed requests wait in memory and are added to the rollups together, folded to one write
 * per hour and identity, at most `flushIntervalMs` after the first of them arrived (or at once when `maxPending`
 * wait). A flush that fails keeps its requests for the next one. Flushes run one at a time, in order.
 *
 * A request handed over at instant t is in the rollups by t + flushIntervalMs + the time one flush takes, as long
 * as the store accepts writes; a crash of the process loses what waits (at most one interval's requests), which
 * `usage rebuild-rollups` restores from the records. A flush that finds its store closed drops its batch silently:
 * a host closes the folder before the store (gateway-host.ts), so only work that outlived its store meets that.
 */
export function createRollupFolder(options: RollupFolderOptions): RollupFolder {
  const clock = options.clock ?? (() => performance.now());
  const schedule = options.schedule ?? defaultSchedule;
  const maxPending = options.maxPending ?? 1_000;
  let pending: { closed: ClosedRequest; at: number }[] = [];
  let cancelTimer: (() => void) | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const flush = (): Promise<void> => {
    cancelTimer?.();
    cancelTimer = undefined;
    running = running.then(async () => {
      const batch = pending;
      pending = [];
      if (batch.length === 0) return;
      try {
        await options.rollups.add(batch.map((entry) => entry.closed));
      } catch (error) {
        // The host closed the store under a flush that was still due: there is nowhere left to write, so nothing
        // to do and nothing to report (`usage rebuild-rollups` restores rollups from the records, as after a crash).
        if (error instanceof StoreClosedError) return;
        // Kept, oldest first, for the next flush: a rollup is late, never lost, while the process lives.
        pending = [...batch, ...pending];
        options.onError(error);
        if (!closed) arm();
      }
    });
    return running;
  };

  const arm = () => {
    if (cancelTimer || pending.length === 0) return;
    const waited = clock() - (pending[0]?.at ?? clock());
    cancelTimer = schedule(
      () => {
        cancelTimer = undefined;
        void flush();
      },
      Math.max(0, options.flushIntervalMs - waited),
    );
  };

  return {
    add(request) {
      if (closed) throw new Error('the rollup folder is closed');
      pending.push({ closed: request, at: clock() });
      if (pending.length >= maxPending) void flush();
      else arm();
    },
    flush,
    oldestWaitMs: () => (pending[0] ? clock() - pending[0].at : 0),
    async close() {
      closed = true;
      await flush();
      cancelTimer?.();
      cancelTimer = undefined;
    },
  };
}

/** On AWS: the records table's stream folds closed records into the rollups, so settlement hands over nothing. */
export const foldedByTheStream: RollupFolder = {
  add() {},
  flush: async () => {},
  oldestWaitMs: () => 0,
  close: async () => {},
};
