import { badRequest } from '../../http/gateway-error.ts';
import type { MessagesThinking } from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import { isRecord } from '../../wires/parse-json.ts';

/**
 * How the gateway turns thinking on upstream when the client says nothing: `enabled` sends a token budget
 * (the form every messages-format engine accepts), `adaptive` lets the model decide (newer engines only).
 */
export type ThinkingForm = { type: 'enabled' } | { type: 'adaptive' };

/** The vendor refuses a smaller budget; below it an engine may still accept one, so it is a floor, not a rule. */
export const minimumThinkingBudgetTokens = 1024;

/**
 * Half of `max_tokens` for reasoning, half for the answer; raised to the vendor minimum (1024) when
 * `max_tokens` is above it, and always below `max_tokens` (the vendor refuses a budget that is not). Under
 * the minimum the vendor itself would refuse any budget, so half is sent for compatible engines that take it.
 * The budget is carved out of the client's `max_tokens`, never added to it, so the output reserved on
 * admission still bounds what the upstream may produce.
 */
export function thinkingBudgetTokens(maxTokens: number): number {
  if (maxTokens < 2) {
    throw badRequest(
      'max_tokens_too_small',
      'This model thinks before it answers: max_tokens must be at least 2 so a thinking budget fits below it.',
    );
  }
  const half = Math.floor(maxTokens / 2);
  return maxTokens > minimumThinkingBudgetTokens ? Math.max(half, minimumThinkingBudgetTokens) : half;
}

/**
 * The `thinking` sent upstream. A client may choose the form itself (`{type: "enabled", budget_tokens}` or
 * `{type: "adaptive"}`, as messages-style clients do); otherwise the route's form applies. Switching thinking
 * off is refused before this, once, on the client's own request (`assertThinkingNotSwitchedOff`).
 */
export function upstreamThinking(clientThinking: unknown, maxTokens: number, form: ThinkingForm): MessagesThinking {
  if (clientThinking === undefined || clientThinking === null) return thinkingOfForm(form, maxTokens);
  if (!isRecord(clientThinking)) {
    throw badRequest('invalid_thinking', 'thinking must be an object such as {"type": "enabled"}.');
  }
  switch (clientThinking.type) {
    case 'adaptive':
      return { type: 'adaptive' };
    case 'enabled': {
      const budget = clientThinking.budget_tokens;
      if (budget === undefined || budget === null) return thinkingOfForm({ type: 'enabled' }, maxTokens);
      if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1 || budget >= maxTokens) {
        throw badRequest(
          'invalid_thinking_budget',
          `thinking.budget_tokens must be a positive integer below max_tokens (${maxTokens}).`,
        );
      }
      return { type: 'enabled', budget_tokens: budget };
    }
    default:
      throw badRequest('invalid_thinking', 'thinking.type must be "enabled" or "adaptive"; thinking is required.');
  }
}

function thinkingOfForm(form: ThinkingForm, maxTokens: number): MessagesThinking {
  switch (form.type) {
    case 'enabled':
      return { type: 'enabled', budget_tokens: thinkingBudgetTokens(maxTokens) };
    case 'adaptive':
      return { type: 'adaptive' };
    default: {
      const unknownForm: never = form;
      throw new Error(`unknown thinking form ${JSON.stringify(unknownForm)}`);
    }
  }
}
