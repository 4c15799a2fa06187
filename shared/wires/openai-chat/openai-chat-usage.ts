import type * as z from '../../validation/zod.ts';
import { parseJson } from '../parse-json.ts';
import type { StreamUsageReader, UsageReport } from '../usage-report.ts';
import { chatCompletionChunkSchema, chatCompletionResponseSchema, type chatUsageSchema } from './openai-chat-api.ts';

export function usageFromChatUsage(usage: z.infer<typeof chatUsageSchema>): UsageReport {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? usage.cached_tokens;
  return {
    inputTokens: usage.prompt_tokens ?? null,
    cachedInputTokens: cached ?? null,
    outputTokens: usage.completion_tokens ?? null,
  };
}

export function chatUsageFromBody(body: unknown): UsageReport | undefined {
  const parsed = chatCompletionResponseSchema.safeParse(body);
  if (!parsed.success || !parsed.data.usage) return undefined;
  return usageFromChatUsage(parsed.data.usage);
}

/** Chat streams carry usage in one chunk near the end (with `include_usage`); a later one wins. */
export function createChatStreamUsageReader(): StreamUsageReader {
  let usage: UsageReport | undefined;
  return {
    push(event) {
      if (event.data === '[DONE]') return;
      const chunk = parseChunk(event.data);
      if (chunk?.usage) usage = usageFromChatUsage(chunk.usage);
    },
    result: () => usage,
  };
}

export function parseChunk(data: string): z.infer<typeof chatCompletionChunkSchema> | undefined {
  const parsed = chatCompletionChunkSchema.safeParse(parseJson(data));
  return parsed.success ? parsed.data : undefined;
}

/** The chunk `include_usage` adds: no choices, only usage. The gateway drops it when the client did not ask. */
export function isUsageOnlyChunk(data: string): boolean {
  const chunk = parseChunk(data);
  return chunk !== undefined && chunk.usage != null && (chunk.choices?.length ?? 0) === 0;
}
