import { afterEach, describe, expect, it, vi } from 'vitest';
import { outcomeByDeadline } from '../../shared/accounting/admission-handle.ts';
import { startRequestDeadline } from '../../shared/clock/monotonic-deadline.ts';
import { logger } from '../../shared/observability/logger.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('the outcome a settlement waits for', () => {
  it('is the outcome itself when it comes', async () => {
    const deadline = startRequestDeadline(60_000);
    const outcome = { status: 200, completed: true, usage: undefined };
    await expect(outcomeByDeadline(outcome, deadline, 'req_1')).resolves.toBe(outcome);
    await expect(outcomeByDeadline(Promise.resolve(outcome), deadline, 'req_1')).resolves.toBe(outcome);
    deadline.stop();
  });

  it('is a failure (500) when the outcome fails', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => {});
    const deadline = startRequestDeadline(60_000);
    await expect(outcomeByDeadline(Promise.reject(new Error('lost')), deadline, 'req_1')).resolves.toEqual({
      status: 500,
      completed: false,
      usage: undefined,
    });
    deadline.stop();
  });

  it('is a time-out (504) when no outcome has come shortly after the deadline, so the request still settles', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => {});
    const deadline = { remainingMs: () => 1_000, signal: new AbortController().signal, stop: () => {} };
    const settled = outcomeByDeadline(new Promise(() => {}), deadline, 'req_stuck');
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(settled).resolves.toEqual({ status: 504, completed: false, usage: undefined });
    expect(errors).toHaveBeenCalledWith(expect.any(String), { requestId: 'req_stuck' });
  });
});
