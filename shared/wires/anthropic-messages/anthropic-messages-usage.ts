import type { StreamUsageReader, UsageReport } from '../usage-report.ts';
import {
  type AnthropicMessagesUsage,
  anthropicMessagesResponseSchema,
  parseAnthropicMessagesStreamEvent,
} from './anthropic-messages-api.ts';

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
  return { inputTokens, cachedInputTokens: counts.cacheReadInputTokens, outputTokens: counts.outputTokens };
}

export function anthropicMessagesUsageFromBody(body: unknown): UsageReport | undefined {
  const parsed = anthropicMessagesResponseSchema.safeParse(body);
  if (!parsed.success || !parsed.data.usage) return undefined;
  const usage = parsed.data.usage;
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
export function createAnthropicMessagesStreamUsageReader(): StreamUsageReader {
  const counts: UsageCounts = {
    inputTokens: null,
    cacheReadInputTokens: null,
    cacheCreationInputTokens: null,
    outputTokens: null,
  };
  let sawUsage = false;

  const takeInputCounts = (usage: AnthropicMessagesUsage) => {
    counts.inputTokens = usage.input_tokens ?? counts.inputTokens;
    counts.cacheReadInputTokens = usage.cache_read_input_tokens ?? counts.cacheReadInputTokens;
    counts.cacheCreationInputTokens = usage.cache_creation_input_tokens ?? counts.cacheCreationInputTokens;
  };

  return {
    push(event) {
      const parsed = parseAnthropicMessagesStreamEvent(event.data);
      if (parsed?.type === 'message_start' && parsed.message.usage) {
        sawUsage = true;
        takeInputCounts(parsed.message.usage);
      } else if (parsed?.type === 'message_delta' && parsed.usage) {
        sawUsage = true;
        takeInputCounts(parsed.usage);
        counts.outputTokens = parsed.usage.output_tokens ?? counts.outputTokens;
      }
    },
    result: () => (sawUsage ? toUsageReport(counts) : undefined),
  };
}
