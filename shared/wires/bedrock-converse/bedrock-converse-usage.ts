import * as z from '../../validation/zod.ts';
import { type StreamUsageReader, type UsageReport, usageProblem, withUsageProblem } from '../usage-report.ts';
import type { ConverseStreamEvent } from './bedrock-converse-stream-event.ts';

/**
 * Converse's `usage` (the answer's, and the stream's `metadata` event's). Its `inputTokens` leaves out the tokens
 * read from and written to the prompt cache, which are counted beside it, as on the messages format; `totalTokens`
 * is not read: the gateway's total is its own sum.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html,
 * https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html
 */
export const converseUsageSchema = z.object({
  inputTokens: z.nullish(z.number()),
  outputTokens: z.nullish(z.number()),
  cacheReadInputTokens: z.nullish(z.number()),
  cacheWriteInputTokens: z.nullish(z.number()),
});

export type ConverseUsage = z.infer<typeof converseUsageSchema>;

/**
 * In the gateway's report input counts every input token, so cache reads and writes are added back to
 * `inputTokens`; cache reads are the cached part. Without `inputTokens` the total is unknown.
 */
export function usageReportOfConverseUsage(usage: ConverseUsage): UsageReport {
  const input = usage.inputTokens ?? null;
  const cacheRead = usage.cacheReadInputTokens ?? null;
  const cacheWrite = usage.cacheWriteInputTokens ?? null;
  // Each part on its own: a negative inputTokens would otherwise hide inside a plausible total.
  const problem = usageProblem({
    inputTokens: input,
    outputTokens: usage.outputTokens,
    cacheReadInputTokens: cacheRead,
    cacheWriteInputTokens: cacheWrite,
  });
  return withUsageProblem(
    {
      inputTokens: input === null ? null : input + (cacheRead ?? 0) + (cacheWrite ?? 0),
      cachedInputTokens: cacheRead,
      outputTokens: usage.outputTokens ?? null,
    },
    problem,
  );
}

/** A stream reports its usage once, in the `metadata` event that ends it; a later one would win. */
export function createConverseStreamUsageReader(): StreamUsageReader<ConverseStreamEvent> {
  let usage: UsageReport | undefined;
  return {
    push(event) {
      if (event.type === 'metadata' && event.usage) usage = usageReportOfConverseUsage(event.usage);
    },
    result: () => usage,
  };
}
