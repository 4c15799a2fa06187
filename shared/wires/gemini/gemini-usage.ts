import { type StreamUsageReader, type UsageReport, usageProblem, withUsageProblem } from '../usage-report.ts';
import type { GeminiResponse, GeminiUsageMetadata } from './gemini-response.ts';
import type { GeminiStreamEvent } from './gemini-stream-event.ts';

/**
 * Input is the prompt (cached content included) plus tool-use prompt tokens, which are billed as input but
 * counted apart. Output is candidates plus thoughts, since thinking is billed as output; a part that is missing
 * counts 0 only when the other one is reported.
 */
export function usageReportOfGeminiUsage(usage: GeminiUsageMetadata): UsageReport {
  const prompt = usage.promptTokenCount ?? null;
  const candidates = usage.candidatesTokenCount ?? null;
  const thoughts = usage.thoughtsTokenCount ?? null;
  const problem = usageProblem(
    {
      promptTokenCount: usage.promptTokenCount,
      cachedContentTokenCount: usage.cachedContentTokenCount,
      candidatesTokenCount: usage.candidatesTokenCount,
      thoughtsTokenCount: usage.thoughtsTokenCount,
      toolUsePromptTokenCount: usage.toolUsePromptTokenCount,
    },
    [['cachedContentTokenCount', 'promptTokenCount']],
  );
  return withUsageProblem(
    {
      inputTokens: prompt === null ? null : prompt + (usage.toolUsePromptTokenCount ?? 0),
      cachedInputTokens: usage.cachedContentTokenCount ?? null,
      outputTokens: candidates === null && thoughts === null ? null : (candidates ?? 0) + (thoughts ?? 0),
    },
    problem,
  );
}

/** The last chunk says why the answer ended, or that the prompt was blocked; either way nothing follows. */
function isFinalChunk(chunk: GeminiResponse): boolean {
  if (chunk.promptFeedback?.blockReason) return true;
  return (chunk.candidates ?? []).some((candidate) => Boolean(candidate.finishReason));
}

/**
 * Every chunk restates the running totals, so the last reported value of each count wins (taken count by count,
 * as a chunk may leave a count out). The prompt count is known from the first chunk, but the output counts of
 * a stream that stopped before its final chunk are only a part of what was generated: output stays unknown
 * until the final chunk, so an interrupted stream is charged conservatively rather than undercounted.
 */
export function createGeminiStreamUsageReader(): StreamUsageReader<GeminiStreamEvent> {
  let latest: GeminiUsageMetadata | undefined;
  let finished = false;
  return {
    push(event) {
      if (event.type !== 'chunk') return;
      const { chunk } = event;
      if (chunk.usageMetadata) latest = mergeDefined(latest, chunk.usageMetadata);
      if (isFinalChunk(chunk)) finished = true;
    },
    result() {
      if (!latest) return undefined;
      const report = usageReportOfGeminiUsage(latest);
      return finished ? report : { ...report, outputTokens: null };
    },
  };
}

function mergeDefined(earlier: GeminiUsageMetadata | undefined, later: GeminiUsageMetadata): GeminiUsageMetadata {
  return {
    promptTokenCount: later.promptTokenCount ?? earlier?.promptTokenCount,
    cachedContentTokenCount: later.cachedContentTokenCount ?? earlier?.cachedContentTokenCount,
    candidatesTokenCount: later.candidatesTokenCount ?? earlier?.candidatesTokenCount,
    thoughtsTokenCount: later.thoughtsTokenCount ?? earlier?.thoughtsTokenCount,
    toolUsePromptTokenCount: later.toolUsePromptTokenCount ?? earlier?.toolUsePromptTokenCount,
  };
}
