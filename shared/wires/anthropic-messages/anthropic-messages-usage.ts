import * as z from '../../validation/zod.ts';
import { type StreamUsageReader, type UsageReport, usageProblem, withUsageProblem } from '../usage-report.ts';
import type { MessagesUsageOut } from './anthropic-messages-answer.ts';
import type { MessagesStreamEvent } from './anthropic-messages-stream-event.ts';

/**
 * `input_tokens` EXCLUDES cache reads and cache writes here, unlike the gateway's usage report. In
 * `message_delta` every count is cumulative and may be `null`, which means "not restated", never 0.
 * https://docs.anthropic.com/en/api/messages#response-usage
 */
export const messagesUsageSchema = z.object({
  input_tokens: z.nullish(z.number()),
  cache_read_input_tokens: z.nullish(z.number()),
  cache_creation_input_tokens: z.nullish(z.number()),
  output_tokens: z.nullish(z.number()),
});

export type MessagesUsage = z.infer<typeof messagesUsageSchema>;

interface UsageCounts {
  inputTokens: number | null;
  cacheReadInputTokens: number | null;
  cacheCreationInputTokens: number | null;
  outputTokens: number | null;
}

/**
 * The vendor's `input_tokens` leaves out cache reads and cache writes; the gateway's input includes every
 * input token, so both are added back. Cache writes are input but not cached input: they were not read
 * from a cache. Without `input_tokens` the total is unknown, whatever the cache counts say.
 */
function toUsageReport(counts: UsageCounts): UsageReport {
  const inputTokens =
    counts.inputTokens === null
      ? null
      : counts.inputTokens + (counts.cacheReadInputTokens ?? 0) + (counts.cacheCreationInputTokens ?? 0);
  // Each part on its own: a negative input_tokens would otherwise hide inside a plausible total.
  const problem = usageProblem({
    input_tokens: counts.inputTokens,
    cache_read_input_tokens: counts.cacheReadInputTokens,
    cache_creation_input_tokens: counts.cacheCreationInputTokens,
    output_tokens: counts.outputTokens,
  });
  return withUsageProblem(
    { inputTokens, cachedInputTokens: counts.cacheReadInputTokens, outputTokens: counts.outputTokens },
    problem,
  );
}

export function usageReportOfMessagesUsage(usage: MessagesUsage): UsageReport {
  return toUsageReport({
    inputTokens: usage.input_tokens ?? null,
    cacheReadInputTokens: usage.cache_read_input_tokens ?? null,
    cacheCreationInputTokens: usage.cache_creation_input_tokens ?? null,
    outputTokens: usage.output_tokens ?? null,
  });
}

/**
 * `message_start` holds the input and cache counts; `message_delta` holds the cumulative output count (the
 * last one wins) and, on newer API versions and on some compatible engines, restates the input and cache
 * counts, which then win. A `null` or missing count in `message_delta` means "not restated", not 0.
 *
 * The `output_tokens` of `message_start` (usually 1) is a placeholder, not a measurement: output stays
 * unknown until a `message_delta` reports it, so an interrupted stream is not charged as one output token.
 */
export function createMessagesStreamUsageReader(): StreamUsageReader<MessagesStreamEvent> {
  const counts: UsageCounts = {
    inputTokens: null,
    cacheReadInputTokens: null,
    cacheCreationInputTokens: null,
    outputTokens: null,
  };
  let sawUsage = false;

  const takeInputCounts = (usage: MessagesUsage) => {
    counts.inputTokens = usage.input_tokens ?? counts.inputTokens;
    counts.cacheReadInputTokens = usage.cache_read_input_tokens ?? counts.cacheReadInputTokens;
    counts.cacheCreationInputTokens = usage.cache_creation_input_tokens ?? counts.cacheCreationInputTokens;
  };

  return {
    push(event) {
      if (event.type === 'message_start' && event.message?.usage) {
        sawUsage = true;
        takeInputCounts(event.message.usage);
      } else if (event.type === 'message_delta' && event.usage) {
        sawUsage = true;
        takeInputCounts(event.usage);
        counts.outputTokens = event.usage.output_tokens ?? counts.outputTokens;
      }
    },
    result: () => (sawUsage ? toUsageReport(counts) : undefined),
  };
}

/**
 * The gateway's usage report in the vendor's form, where `input_tokens` leaves out cache reads. The report does
 * not tell cache writes apart, so they stay inside `input_tokens` and `cache_creation_input_tokens` is unknown
 * (`null`, which the format allows); a count the upstream did not report is 0 here, as the format needs a number,
 * while the usage record keeps it unknown.
 */
export function messagesUsageOfReport(report: UsageReport | undefined): MessagesUsageOut {
  const cached = report?.cachedInputTokens ?? null;
  const input = report?.inputTokens ?? null;
  return {
    input_tokens: input === null ? 0 : Math.max(0, input - (cached ?? 0)),
    output_tokens: report?.outputTokens ?? 0,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: cached,
  };
}
