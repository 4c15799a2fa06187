import { describe, expect, it } from 'vitest';
import {
  applyThinkingMode,
  minimumThinkingBudgetTokens,
  thinkingBudgetTokens,
} from '../../shared/translation/thinking-mode.ts';
import { expectGatewayError } from './chat-to-messages/translate-fixture.ts';

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

describe('applyThinkingMode: a messages-form request to a model that runs only in thinking mode', () => {
  const hello = { model: 'alpha-for-coding', messages: [{ role: 'user', content: 'Hi' }] };

  it('turns thinking on with a budget below the max_tokens that goes upstream', () => {
    expect(applyThinkingMode({ ...hello, max_tokens: 8192 }, 32_000).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 4096,
    });
    expect(applyThinkingMode({ ...hello, max_tokens: 1500 }, 32_000).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 1024,
    });
    // Without max_tokens the allowance goes upstream as it; a larger max_tokens is held to it.
    expect(applyThinkingMode(hello, 4096).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(applyThinkingMode({ ...hello, max_tokens: 64_000 }, 4096).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 2048,
    });
  });

  it("keeps the client's own form where its budget fits, and lowers one only the cap pushed out", () => {
    const enabled = { type: 'enabled', budget_tokens: 2000 };
    expect(applyThinkingMode({ ...hello, max_tokens: 4000, thinking: enabled }, 32_000).thinking).toEqual(enabled);
    expect(applyThinkingMode({ ...hello, thinking: { type: 'adaptive' } }, 32_000).thinking).toEqual({
      type: 'adaptive',
    });
    expect(
      applyThinkingMode({ ...hello, max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 16_000 } }, 4096)
        .thinking,
    ).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expectGatewayError(
      () => applyThinkingMode({ ...hello, max_tokens: 1000, thinking: { type: 'enabled', budget_tokens: 1000 } }, 8192),
      400,
      'invalid_thinking_budget',
    );
    expectGatewayError(
      () => applyThinkingMode({ ...hello, thinking: { type: 'sometimes' } }, 8192),
      400,
      'invalid_thinking',
    );
  });

  it('refuses forced tool use (any, tool) with advice to use auto; auto and none pass', () => {
    for (const toolChoice of [{ type: 'any' }, { type: 'tool', name: 'get_weather' }]) {
      const refusal = expectGatewayError(
        () => applyThinkingMode({ ...hello, tool_choice: toolChoice }, 8192),
        400,
        'forced_tool_choice_unsupported',
      );
      expect(refusal.message).toContain('tool_choice "auto"');
      expect(refusal.message).toContain('"none" after a tool result');
    }
    for (const toolChoice of [{ type: 'auto' }, { type: 'none' }]) {
      expect(applyThinkingMode({ ...hello, tool_choice: toolChoice }, 8192).tool_choice).toEqual(toolChoice);
    }
  });
});
