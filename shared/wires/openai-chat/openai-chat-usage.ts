import * as z from '../../validation/zod.ts';
import { type StreamUsageReader, type UsageReport, usageProblem, withUsageProblem } from '../usage-report.ts';
import type { ChatStreamEvent } from './openai-chat-stream-event.ts';

/**
 * Usage as OpenAI-compatible providers report it, tolerant of the fields some of them rename or omit. Both counts
 * include their parts: `prompt_tokens` the cached tokens, `completion_tokens` the reasoning tokens.
 */
export const chatUsageSchema = z.looseObject({
  prompt_tokens: z.nullish(z.number()),
  completion_tokens: z.nullish(z.number()),
  // Cache writes appear here on router-style APIs.
  prompt_tokens_details: z.nullish(
    z.looseObject({ cached_tokens: z.nullish(z.number()), cache_write_tokens: z.nullish(z.number()) }),
  ),
  completion_tokens_details: z.nullish(z.looseObject({ reasoning_tokens: z.nullish(z.number()) })),
  // DeepSeek-type providers report cache hits beside the prompt count.
  prompt_cache_hit_tokens: z.nullish(z.number()),
  // Some GLM-type and older compatible APIs put the cached count at the top level.
  cached_tokens: z.nullish(z.number()),
});

export type ChatUsage = z.infer<typeof chatUsageSchema>;

export function usageReportOfChatUsage(usage: ChatUsage): UsageReport {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? usage.cached_tokens;
  const report = {
    inputTokens: usage.prompt_tokens ?? null,
    cachedInputTokens: cached ?? null,
    outputTokens: usage.completion_tokens ?? null,
  };
  const problem = usageProblem(
    {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      'prompt_tokens_details.cached_tokens': usage.prompt_tokens_details?.cached_tokens,
      'prompt_tokens_details.cache_write_tokens': usage.prompt_tokens_details?.cache_write_tokens,
      'completion_tokens_details.reasoning_tokens': usage.completion_tokens_details?.reasoning_tokens,
      prompt_cache_hit_tokens: usage.prompt_cache_hit_tokens,
      cached_tokens: usage.cached_tokens,
    },
    [
      ['prompt_tokens_details.cached_tokens', 'prompt_tokens'],
      ['prompt_cache_hit_tokens', 'prompt_tokens'],
      ['cached_tokens', 'prompt_tokens'],
      ['completion_tokens_details.reasoning_tokens', 'completion_tokens'],
    ],
  );
  return withUsageProblem(report, problem);
}

/** Usage as the gateway writes it in a chat answer or chunk; a type alias, so it is also the usage a reader reads. */
export type ChatUsageOut = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
};

/**
 * The gateway's usage report (input already includes cache reads and writes) in chat form, where
 * `prompt_tokens` counts every input token and `cached_tokens` is the part read from a cache. A count the
 * provider did not report is unknown: usage is left out rather than sent as 0.
 */
export function chatUsageOfReport(report: UsageReport | undefined): ChatUsageOut | undefined {
  if (!report || report.inputTokens === null || report.outputTokens === null) return undefined;
  return {
    prompt_tokens: report.inputTokens,
    completion_tokens: report.outputTokens,
    total_tokens: report.inputTokens + report.outputTokens,
    ...(report.cachedInputTokens === null
      ? {}
      : { prompt_tokens_details: { cached_tokens: report.cachedInputTokens } }),
  };
}

/** Chat streams carry usage in one chunk near the end (with `include_usage`); a later one wins. */
export function createChatStreamUsageReader(): StreamUsageReader<ChatStreamEvent> {
  let usage: UsageReport | undefined;
  return {
    push(event) {
      if (event.type === 'chunk' && event.chunk.usage) usage = usageReportOfChatUsage(event.chunk.usage);
    },
    result: () => usage,
  };
}
