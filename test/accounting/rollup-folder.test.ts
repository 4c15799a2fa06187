import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRollupFolder, type Schedule } from '../../shared/accounting/rollup-folder.ts';
import type { ClosedRequest } from '../../shared/store/usage-records.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

/**
 * The in-process rollup folder on a real store, with its monotonic clock and its timer driven by the test: the
 * bound it states (a settled request is in the rollups at most `flushIntervalMs` after it was handed over, plus one
 * flush) is checked at the instants the folder itself chose, never by sleeping.
 */
const interval = 1_000;
let engine: TestStore;
beforeAll(async () => {
  engine = await startTestStore('sqlite');
});
afterAll(async () => engine?.close());

/** A timer that fires only when the test says so, remembering when each callback was due. */
function manualTimer(clock: { now: number }) {
  const timers: { due: number; callback: () => void; cancelled: boolean }[] = [];
  const schedule: Schedule = (callback, delayMs) => {
    const timer = { due: clock.now + delayMs, callback, cancelled: false };
    timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  const pending = () => timers.filter((timer) => !timer.cancelled);
  /** Moves the clock to the next due timer and fires it; returns when it was due. */
  const fireNext = () => {
    const next = pending().sort((a, b) => a.due - b.due)[0];
    if (!next) throw new Error('no flush is scheduled');
    next.cancelled = true;
    clock.now = Math.max(clock.now, next.due);
    next.callback();
    return next.due;
  };
  return { schedule, pending, fireNext };
}

let sequence = 0;
function closedRequest(memberId: string, charge: number): ClosedRequest {
  sequence++;
  return {
    record: {
      id: `req_fold_${sequence}`,
      memberId,
      keyId: 'key_fold',
      provider: 'openai',
      model: 'openai/m',
      connectionId: 'con_fold',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: false,
      startedAt: '2025-03-04T05:06:07.000Z',
      day: '2025-03-04',
      reserved: 50,
      state: 'running',
    },
    outcome: {
      state: 'completed',
      status: 200,
      endedAt: '2025-03-04T05:06:08.000Z',
      durationMs: 1_000,
      inputTokens: charge - 1,
      cachedInputTokens: null,
      outputTokens: 1,
      charge,
      source: 'measured',
    },
  };
}

const hourOf = async (memberId: string) =>
  engine.store.rollups.read({ by: 'hour', first: '2025-03-04T05', last: '2025-03-04T05', memberId });

describe('the in-process rollup folder', () => {
  it('adds what settled within the flush interval of the first of it, in one batch, and never waits longer', async () => {
    const clock = { now: 10_000 };
    const timer = manualTimer(clock);
    const folder = createRollupFolder({
      rollups: engine.store.rollups,
      flushIntervalMs: interval,
      clock: () => clock.now,
      schedule: timer.schedule,
      onError: (error) => {
        throw error;
      },
    });
    const memberId = 'mem_fold_bound';
    folder.add(closedRequest(memberId, 10));
    clock.now += 400;
    folder.add(closedRequest(memberId, 20));
    expect(await hourOf(memberId)).toEqual([]);
    expect(timer.pending()).toHaveLength(1);
    const firedAt = timer.fireNext();
    // Due exactly one interval after the first request was handed over, whatever came after it.
    expect(firedAt).toBe(10_000 + interval);
    expect(folder.oldestWaitMs()).toBeLessThanOrEqual(interval);
    await folder.flush();
    expect(await hourOf(memberId)).toMatchObject([{ requests: 2, charge: 30 }]);
    expect(folder.oldestWaitMs()).toBe(0);
    expect(timer.pending()).toHaveLength(0);
  });

  it('flushes at once when enough wait, and on close, leaving nothing behind', async () => {
    const clock = { now: 0 };
    const timer = manualTimer(clock);
    const folder = createRollupFolder({
      rollups: engine.store.rollups,
      flushIntervalMs: interval,
      maxPending: 3,
      clock: () => clock.now,
      schedule: timer.schedule,
      onError: (error) => {
        throw error;
      },
    });
    const memberId = 'mem_fold_close';
    for (let index = 0; index < 3; index++) folder.add(closedRequest(memberId, 1));
    await folder.flush();
    expect(await hourOf(memberId)).toMatchObject([{ requests: 3 }]);
    folder.add(closedRequest(memberId, 1));
    await folder.close();
    expect(await hourOf(memberId)).toMatchObject([{ requests: 4 }]);
    expect(timer.pending()).toHaveLength(0);
    expect(() => folder.add(closedRequest(memberId, 1))).toThrow(/closed/);
  });

  it('keeps a batch the store refused and adds it with the next flush, exactly once', async () => {
    const clock = { now: 0 };
    const timer = manualTimer(clock);
    const errors: unknown[] = [];
    let refusals = 1;
    const folder = createRollupFolder({
      rollups: {
        add: async (closed) => {
          if (refusals-- > 0) throw new Error('the store is unavailable (injected)');
          return engine.store.rollups.add(closed);
        },
      },
      flushIntervalMs: interval,
      clock: () => clock.now,
      schedule: timer.schedule,
      onError: (error) => errors.push(error),
    });
    const memberId = 'mem_fold_retry';
    folder.add(closedRequest(memberId, 5));
    await folder.flush();
    expect(errors).toHaveLength(1);
    expect(await hourOf(memberId)).toEqual([]);
    // The failed flush re-armed the timer: the request is late by one more interval, not lost.
    expect(timer.pending()).toHaveLength(1);
    folder.add(closedRequest(memberId, 7));
    timer.fireNext();
    await folder.flush();
    expect(await hourOf(memberId)).toMatchObject([{ requests: 2, charge: 12 }]);
  });
});
