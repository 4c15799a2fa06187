import { afterEach, describe, expect, it, vi } from 'vitest';
import { chargeableUsage } from '../../shared/accounting/chargeable-usage.ts';
import { logger } from '../../shared/observability/logger.ts';
import { usageReportOfMessagesUsage } from '../../shared/wires/anthropic-messages/anthropic-messages-usage.ts';
import { usageReportOfGeminiUsage } from '../../shared/wires/gemini/gemini-usage.ts';
import { usageReportOfChatUsage } from '../../shared/wires/openai-chat/openai-chat-usage.ts';
import { usageReportOfResponsesUsage } from '../../shared/wires/openai-responses/openai-responses-usage.ts';
import type { UsageReport } from '../../shared/wires/usage-report.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const good: UsageReport = { inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 };

describe('usage that may be charged', () => {
  it('passes consistent figures, unknown ones included, as they are', () => {
    expect(chargeableUsage(good, 'req_1')).toBe(good);
    const partial = { inputTokens: 5, cachedInputTokens: null, outputTokens: null };
    expect(chargeableUsage(partial, 'req_1')).toBe(partial);
    expect(chargeableUsage(undefined, 'req_1')).toBeUndefined();
    expect(chargeableUsage({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 }, 'req_1')).toBeDefined();
  });

  it.each<[string, UsageReport]>([
    ['negative input', { ...good, inputTokens: -1_000_000 }],
    ['fractional output', { ...good, outputTokens: 0.5 }],
    ['a count beyond the safe integers', { ...good, inputTokens: 2 ** 53 }],
    ['not a number', { ...good, outputTokens: Number.NaN }],
    ['infinite', { ...good, outputTokens: Number.POSITIVE_INFINITY }],
    ['cached input above input', { ...good, cachedInputTokens: 101 }],
    ['a sum beyond the safe integers', { inputTokens: 2 ** 52, cachedInputTokens: null, outputTokens: 2 ** 52 }],
    ['a problem the wire found', { ...good, problem: 'cache_read_input_tokens is -5, not a count of tokens' }],
  ])('treats %s as not reported, and logs it with the request id', (_name, usage) => {
    const warnings = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    expect(chargeableUsage(usage, 'req_bad')).toBeUndefined();
    expect(warnings).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ requestId: 'req_bad' }));
  });
});

describe('each wire names what is wrong in its own fields', () => {
  it('chat: the issue`s figures, and breakdowns above their whole', () => {
    expect(usageReportOfChatUsage({ prompt_tokens: -1_000_000, completion_tokens: 0.5 }).problem).toBe(
      'prompt_tokens is -1000000, not a count of tokens',
    );
    expect(
      usageReportOfChatUsage({
        prompt_tokens: 10,
        completion_tokens: 5,
        completion_tokens_details: { reasoning_tokens: 6 },
      }).problem,
    ).toBe('completion_tokens_details.reasoning_tokens (6) is more than completion_tokens (5)');
    expect(
      usageReportOfChatUsage({ prompt_tokens: 10, completion_tokens: 5, prompt_cache_hit_tokens: 11 }).problem,
    ).toMatch(/prompt_cache_hit_tokens/);
    expect(usageReportOfChatUsage({ prompt_tokens: 10, completion_tokens: 5 })).not.toHaveProperty('problem');
  });

  it('responses: reasoning above output', () => {
    expect(
      usageReportOfResponsesUsage({ input_tokens: 1, output_tokens: 2, output_tokens_details: { reasoning_tokens: 3 } })
        .problem,
    ).toMatch(/reasoning_tokens/);
  });

  it('messages: a negative part that the input total would hide', () => {
    const report = usageReportOfMessagesUsage({ input_tokens: -40, cache_read_input_tokens: 50, output_tokens: 3 });
    expect(report.inputTokens).toBe(10);
    expect(report.problem).toBe('input_tokens is -40, not a count of tokens');
  });

  it('generate-content: cached content above the prompt, and a negative tool-use prompt', () => {
    expect(usageReportOfGeminiUsage({ promptTokenCount: 10, cachedContentTokenCount: 11 }).problem).toMatch(
      /cachedContentTokenCount \(11\) is more than promptTokenCount \(10\)/,
    );
    expect(usageReportOfGeminiUsage({ promptTokenCount: 10, toolUsePromptTokenCount: -10 }).problem).toMatch(
      /toolUsePromptTokenCount/,
    );
  });
});
