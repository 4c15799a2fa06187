import type { StreamUsageReader, UsageReport } from '../usage-report.ts';
import {
  type OpenaiResponsesUsage,
  openaiResponsesResponseSchema,
  parseOpenaiResponsesStreamEvent,
} from './openai-responses-api.ts';

/** Already in the gateway's terms: input includes cached tokens, output includes reasoning tokens. */
function toUsageReport(usage: OpenaiResponsesUsage): UsageReport {
  return {
    inputTokens: usage.input_tokens ?? null,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? null,
    outputTokens: usage.output_tokens ?? null,
  };
}

export function openaiResponsesUsageFromBody(body: unknown): UsageReport | undefined {
  const parsed = openaiResponsesResponseSchema.safeParse(body);
  if (!parsed.success || !parsed.data.usage) return undefined;
  return toUsageReport(parsed.data.usage);
}

/**
 * Usage arrives once, on the event that ends the response: `response.completed`, or `response.incomplete`
 * (output limit reached) or `response.failed` when they carry it. `response.created` and
 * `response.in_progress` also hold a response object, but its usage is always null there and is not read.
 */
export function createOpenaiResponsesStreamUsageReader(): StreamUsageReader {
  let usage: UsageReport | undefined;
  return {
    push(event) {
      const parsed = parseOpenaiResponsesStreamEvent(event.data);
      if (!parsed) return;
      switch (parsed.type) {
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed':
          if (parsed.response.usage) usage = toUsageReport(parsed.response.usage);
          return;
        default:
          return;
      }
    },
    result: () => usage,
  };
}
