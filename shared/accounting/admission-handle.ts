import type { Principal } from '../auth/principal.ts';
import { type RequestDeadline, startStopwatch } from '../clock/monotonic-deadline.ts';
import { type GatewayServices, trackBackground } from '../config/gateway-services.ts';
import type { AnswerSummary } from '../observability/answer-summary.ts';
import { logger } from '../observability/logger.ts';
import type { RequestTrace } from '../observability/request-trace.ts';
import type { UsageReport } from '../wires/usage-report.ts';
import { admit, type RecordDescription } from './admit.ts';
import { chargeableUsage } from './chargeable-usage.ts';
import { type RequestEnding, settle, settlementOutcome } from './settle.ts';

/** How an admitted request ended, as settlement needs to know it. */
export interface RequestOutcome {
  status: number;
  /** The answer came whole (see `RequestEnding.completed`): not cut off, cancelled or timed out. */
  completed: boolean;
  /** What the provider reported; validated before it is charged (chargeable-usage.ts). */
  usage: UsageReport | undefined;
  /** Telemetry only: the answer's model and finish reasons, and the gateway's code of a failure. */
  summary?: AnswerSummary | undefined;
  errorCode?: string | undefined;
}

/**
 * An admitted request: what the pipeline holds from admission on, and the only way it settles. `settle` runs once,
 * whoever calls it and however often; `close`, the pipeline's `finally`, settles as failed a request that no path
 * settled. So every admitted request settles exactly once by construction, instead of by each return path
 * remembering to.
 */
export interface AdmissionHandle {
  readonly requestId: string;
  /**
   * Settles with the outcome once it is known — at once for a whole answer, when the relay ends for a stream — and
   * returns that settlement (the response's `afterResponse`). The first outcome given is the one settled.
   */
  settle(outcome: RequestOutcome | Promise<RequestOutcome>): Promise<void>;
  /** Settles as a failure (status 500, the reservation as the charge) unless an outcome was already given. */
  close(): void;
}

export interface AdmissionRequest {
  principal: Principal;
  requestId: string;
  reserve: number;
  holderDailyRequests: number | undefined;
  /** What the usage record says of the request, beyond what admission decides. */
  describes: RecordDescription;
  /** The request's deadline: the handle stops its timer once the outcome is known. */
  deadline: RequestDeadline;
  /** Told how the request settled, when telemetry is on. */
  trace?: RequestTrace | undefined;
}

/**
 * If an outcome never comes (a response nobody reads or cancels, a fault nothing caught), the request still
 * settles this long after its deadline, as a time-out: well inside the lease, which lasts two minutes longer.
 */
const outcomeGraceMs = 10_000;

const failedOutcome = (status: number): RequestOutcome => ({ status, completed: false, usage: undefined });

/**
 * Admits the request (the reservation and the leases, in one atomic step of the store; raises the refusal) and
 * returns its handle. The record that shows the request as running is written by the admission itself where the
 * engine can (SQLite: one transaction), else alongside the upstream call, not before it; settlement waits for that
 * write, so the record it closes is never overtaken by it.
 */
export async function admitRequest(services: GatewayServices, request: AdmissionRequest): Promise<AdmissionHandle> {
  const { requestId, deadline } = request;
  const {
    running: { record, written },
  } = await admit(services, {
    principal: request.principal,
    requestId,
    reserve: request.reserve,
    holderDailyRequests: request.holderDailyRequests,
    describes: request.describes,
  });
  const stopwatch = startStopwatch();
  // A write that throws instead of rejecting is caught the same way.
  const runningWrite = written
    ? Promise.resolve()
    : Promise.resolve()
        .then(() => services.store.records.putRunning(record))
        .catch((error: unknown) => logger.warn('running record not written', { requestId, error }));

  let settlement: Promise<void> | undefined;
  const settleOnce = (outcome: RequestOutcome | Promise<RequestOutcome>): Promise<void> => {
    settlement ??= trackBackground(
      services,
      runningWrite
        .then(() => outcomeByDeadline(outcome, deadline, requestId))
        .then(async (ended) => {
          deadline.stop();
          const ending = {
            record,
            status: ended.status,
            completed: ended.completed,
            usage: chargeableUsage(ended.usage, requestId),
            endedAt: services.now(),
            durationMs: stopwatch.elapsedMs(),
          };
          const settledHere = await settle(services, ending);
          if (request.trace) traceSettlement(request.trace, ending, ended);
          return settledHere;
        })
        // Only the settlement that closed the request looks at the member's day; a check that fails is logged.
        .then((settledHere) => {
          if (!settledHere) return;
          return services.alerts.settled({
            memberId: record.memberId,
            day: record.day,
            dailyTokens: request.principal.member.policy.dailyTokens,
          });
        })
        // Before the lease was released the reaper settles it when the lease expires; after, the record stays
        // running (docs/accounting.md: what settlement's ordered writes cannot promise).
        .then(
          () => undefined,
          (error: unknown) => logger.error('settlement failed', { requestId, error }),
        ),
    ) as Promise<void>;
    return settlement;
  };
  return {
    requestId,
    settle: settleOnce,
    close() {
      if (settlement === undefined) void settleOnce(failedOutcome(500));
    },
  };
}

/** The outcome, or a failure if it fails or has not come shortly after the deadline (faults: logged). */
export async function outcomeByDeadline(
  outcome: RequestOutcome | Promise<RequestOutcome>,
  deadline: RequestDeadline,
  requestId: string,
): Promise<RequestOutcome> {
  if (!(outcome instanceof Promise)) return outcome;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<RequestOutcome>((resolve) => {
    timer = setTimeout(() => {
      logger.error('no outcome by the request deadline: settled as a time-out', { requestId });
      resolve(failedOutcome(504));
    }, deadline.remainingMs() + outcomeGraceMs);
    timer.unref();
  });
  const known = outcome.catch((error: unknown) => {
    logger.error('request failed after admission', { requestId, error });
    return failedOutcome(500);
  });
  try {
    return await Promise.race([known, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tells telemetry how the request ended, by the same rule that closed its record. */
function traceSettlement(trace: RequestTrace, ending: RequestEnding, ended: RequestOutcome): void {
  const outcome = settlementOutcome(ending.record, ending);
  trace.settled({
    status: outcome.status,
    state: outcome.state,
    charge: outcome.charge,
    reservation: ending.record.reserved,
    accountingSource: outcome.source,
    inputTokens: outcome.inputTokens,
    outputTokens: outcome.outputTokens,
    cachedInputTokens: outcome.cachedInputTokens,
    responseModel: ended.summary?.responseModel,
    finishReasons: ended.summary?.finishReasons ?? [],
    errorCode: ended.errorCode,
  });
}
