import type { ActivityRow } from './usage-activity.ts';

/** A sum and how many requests contributed to it: "12,345 from 98 of 100 requests" (spec §4.6 rule 5). */
export interface ReportedFigure {
  value: number;
  reportedBy: number;
}

export interface UsageTotals {
  /** Every request in the selection: completed, failed and running. */
  requests: number;
  completed: number;
  failed: number;
  running: number;
  inputTokens: ReportedFigure;
  /** Cache reads, already inside `inputTokens` (spec §2.4). */
  cachedInputTokens: ReportedFigure;
  outputTokens: ReportedFigure;
  /** Allowance charge; every closed request has one, a running request not yet. */
  charge: ReportedFigure;
  /** Always unavailable: no per-model pricing is stored (spec §4.6 rule 6). */
  estimatedCost: { available: false; reason: string };
}

export const estimatedCostUnavailable = {
  available: false,
  reason: 'No per-model pricing is stored, so no cost is estimated.',
} as const;

export function sumTotals(rows: readonly ActivityRow[]): UsageTotals {
  const totals: UsageTotals = {
    requests: 0,
    completed: 0,
    failed: 0,
    running: 0,
    inputTokens: { value: 0, reportedBy: 0 },
    cachedInputTokens: { value: 0, reportedBy: 0 },
    outputTokens: { value: 0, reportedBy: 0 },
    charge: { value: 0, reportedBy: 0 },
    estimatedCost: estimatedCostUnavailable,
  };
  for (const row of rows) {
    totals.requests += row.requests;
    totals.failed += row.failed;
    totals.running += row.running;
    totals.completed += row.requests - row.failed - row.running;
    totals.inputTokens.value += row.inputTokens;
    totals.inputTokens.reportedBy += row.inputTokensReported;
    totals.cachedInputTokens.value += row.cachedInputTokens;
    totals.cachedInputTokens.reportedBy += row.cachedInputTokensReported;
    totals.outputTokens.value += row.outputTokens;
    totals.outputTokens.reportedBy += row.outputTokensReported;
    totals.charge.value += row.charge;
    totals.charge.reportedBy += row.requests - row.running;
  }
  return totals;
}
