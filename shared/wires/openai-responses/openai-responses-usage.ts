import * as z from '../../validation/zod.ts';
import { type StreamUsageReader, type UsageReport, usageProblem, withUsageProblem } from '../usage-report.ts';
import type { ResponsesStreamEvent } from './openai-responses-stream-event.ts';

/** `input_tokens` includes the cached tokens and `output_tokens` includes reasoning tokens. */
export const responsesUsageSchema = z.object({
  input_tokens: z.nullish(z.number()),
  input_tokens_details: z.nullish(z.object({ cached_tokens: z.nullish(z.number()) })),
  output_tokens: z.nullish(z.number()),
  output_tokens_details: z.nullish(z.object({ reasoning_tokens: z.nullish(z.number()) })),
});

export type ResponsesUsage = z.infer<typeof responsesUsageSchema>;

/** Already in the gateway's terms: input includes cached tokens, output includes reasoning tokens. */
export function usageReportOfResponsesUsage(usage: ResponsesUsage): UsageReport {
  const report = {
    inputTokens: usage.input_tokens ?? null,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? null,
    outputTokens: usage.output_tokens ?? null,
  };
  const problem = usageProblem(
    {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      'input_tokens_details.cached_tokens': usage.input_tokens_details?.cached_tokens,
      'output_tokens_details.reasoning_tokens': usage.output_tokens_details?.reasoning_tokens,
    },
    [
      ['input_tokens_details.cached_tokens', 'input_tokens'],
      ['output_tokens_details.reasoning_tokens', 'output_tokens'],
    ],
  );
  return withUsageProblem(report, problem);
}

/**
 * Usage arrives once, on the event that ends the response: `response.completed`, or `response.incomplete`
 * (output limit reached) or `response.failed` when they carry it. `response.created` and
 * `response.in_progress` also hold a response object, but its usage is always null there and is not read.
 */
export function createResponsesStreamUsageReader(): StreamUsageReader<ResponsesStreamEvent> {
  let usage: UsageReport | undefined;
  return {
    push(event) {
      switch (event.type) {
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed':
          if (event.response.usage) usage = usageReportOfResponsesUsage(event.response.usage);
          return;
        default:
          return;
      }
    },
    result: () => usage,
  };
}
