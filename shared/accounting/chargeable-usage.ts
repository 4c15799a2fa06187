import { logger } from '../observability/logger.ts';
import { isTokenCount, type UsageReport } from '../wires/usage-report.ts';

/**
 * Usage as it may be charged. Settlement trusts what it is given, so figures a provider cannot have meant — a
 * negative or fractional count, one beyond the safe integers, cached input above input (or any part above its
 * whole, which the wire that read them checked) — are treated as not reported: the reservation stays the charge
 * (spec §8 rule 2), and the request id and the figures are logged for whoever runs the provider connection.
 * Checked on the report as well as by the wire, so no reader can let such figures through.
 */
export function chargeableUsage(usage: UsageReport | undefined, requestId: string): UsageReport | undefined {
  if (usage === undefined) return undefined;
  const problem = usage.problem ?? reportProblem(usage);
  if (problem === undefined) return usage;
  logger.warn('usage not charged: the provider reported figures that are not token counts', {
    requestId,
    problem,
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    outputTokens: usage.outputTokens,
  });
  return undefined;
}

function reportProblem(usage: UsageReport): string | undefined {
  for (const [field, value] of Object.entries({
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    outputTokens: usage.outputTokens,
  })) {
    if (value !== null && !isTokenCount(value)) return `${field} is ${value}, not a count of tokens`;
  }
  const { inputTokens, cachedInputTokens, outputTokens } = usage;
  if (inputTokens !== null && cachedInputTokens !== null && cachedInputTokens > inputTokens) {
    return `cached input (${cachedInputTokens}) is more than input (${inputTokens})`;
  }
  if (inputTokens !== null && outputTokens !== null && !isTokenCount(inputTokens + outputTokens)) {
    return `input and output (${inputTokens} + ${outputTokens}) add up beyond the safe integers`;
  }
  return undefined;
}
