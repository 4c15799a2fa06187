import { describe, expect, it } from 'vitest';
import {
  minimumThinkingBudgetTokens,
  thinkingBudgetTokens,
} from '../../../shared/translation/chat-to-messages/thinking-budget.ts';
import { expectGatewayError } from './translate-fixture.ts';

describe('thinkingBudgetTokens', () => {
  it('gives half of max_tokens, at least the vendor minimum when max_tokens is above it', () => {
    expect(thinkingBudgetTokens(32_000)).toBe(16_000);
    expect(thinkingBudgetTokens(2048)).toBe(1024);
    expect(thinkingBudgetTokens(1025)).toBe(minimumThinkingBudgetTokens);
    expect(thinkingBudgetTokens(1024)).toBe(512);
    expect(thinkingBudgetTokens(2)).toBe(1);
  });

  it('stays below max_tokens for every size', () => {
    for (const maxTokens of [2, 3, 100, 1023, 1024, 1025, 1026, 2047, 2049, 262_144]) {
      const budget = thinkingBudgetTokens(maxTokens);
      expect(budget).toBeGreaterThanOrEqual(1);
      expect(budget).toBeLessThan(maxTokens);
    }
  });

  it('refuses a max_tokens too small to hold any budget below it', () => {
    expectGatewayError(() => thinkingBudgetTokens(1), 400, 'max_tokens_too_small');
  });
});
