import { type ChatUsage, usageReportOfChatUsage } from '../../wires/openai-chat/openai-chat-usage.ts';
import type { ResponsesUsageOut } from '../../wires/openai-responses/openai-responses-response.ts';

/**
 * Chat usage → Responses usage. Both count the same way (input includes cached tokens, output includes
 * reasoning tokens), so the figures carry over; the cached count is read in every form compatible engines
 * report it. A count the upstream did not report is unknown: usage is left out rather than sent as 0. The
 * detail counts (cache reads and writes, reasoning) are 0 when not reported, because the SDK types them as
 * numbers; the totals, which usage is settled on, never depend on them (the messages route, for one, folds
 * cache writes into input and reports no reasoning count).
 */
export function responsesUsageOf(usage: ChatUsage | null | undefined): ResponsesUsageOut | undefined {
  if (!usage) return undefined;
  const report = usageReportOfChatUsage(usage);
  if (report.inputTokens === null || report.outputTokens === null) return undefined;
  return {
    input_tokens: report.inputTokens,
    input_tokens_details: {
      cached_tokens: report.cachedInputTokens ?? 0,
      cache_write_tokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    },
    output_tokens: report.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: report.inputTokens + report.outputTokens,
  };
}
