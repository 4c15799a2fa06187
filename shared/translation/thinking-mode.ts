import { badRequest } from '../http/gateway-error.ts';
import type { MessagesThinking } from '../wires/anthropic-messages/anthropic-messages-request.ts';
import type { WireRequest } from '../wires/client-wire-format.ts';
import { isRecord } from '../wires/parse-json.ts';

/**
 * The rules of a model that runs only in thinking mode (the K2.7 route, spec §4.4), for a request in the messages
 * format — whichever route wrote it: a messages client's own request passed through, or a chat (or Responses)
 * request translated. They are applied here and nowhere else:
 *
 * - thinking is turned on when the request leaves it out, with a token budget below the `max_tokens` that goes
 *   upstream (the form every messages-format engine accepts); a client's own form is kept when it fits;
 * - forced tool use (`tool_choice` `any` or `tool`, which chat's `required` and named functions become) is
 *   refused: thinking mode cannot be forced to call a tool (spec §4.4 rule 2).
 *
 * Switching thinking off is refused before this, once, on the client's own request (`assertThinkingNotSwitchedOff`),
 * because a translation may drop the switch. https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
export function applyThinkingMode(request: WireRequest, outputAllowance: number): WireRequest {
  assertToolChoiceNotForced(request.tool_choice);
  const clientMaxTokens = typeof request.max_tokens === 'number' ? request.max_tokens : undefined;
  // What goes upstream: the client's maximum held to the allowance (anthropic-messages-spend-bounds.ts).
  const maxTokens = Math.min(clientMaxTokens ?? outputAllowance, outputAllowance);
  return { ...request, thinking: requiredThinking(request.thinking, maxTokens, clientMaxTokens) };
}

/** The vendor refuses a smaller budget; below it an engine may still accept one, so it is a floor, not a rule. */
export const minimumThinkingBudgetTokens = 1024;

/**
 * Half of `max_tokens` for reasoning, half for the answer; raised to the vendor minimum (1024) when
 * `max_tokens` is above it, and always below `max_tokens` (the vendor refuses a budget that is not). Under
 * the minimum the vendor itself would refuse any budget, so half is sent for compatible engines that take it.
 * The budget is carved out of `max_tokens`, never added to it, so the output reserved on admission still bounds
 * what the upstream may produce.
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
 * The `thinking` sent upstream: the client's own form (`{type: "enabled", budget_tokens}` or `{type: "adaptive"}`)
 * where it chose one, else a budget. A client budget that the allowance's cap, not the client, pushed up against
 * `max_tokens` is lowered to fit, since the client asked for more room than it gets; one that does not fit the
 * client's own `max_tokens` is refused.
 */
function requiredThinking(
  clientThinking: unknown,
  maxTokens: number,
  clientMaxTokens: number | undefined,
): MessagesThinking {
  if (clientThinking === undefined || clientThinking === null) {
    return { type: 'enabled', budget_tokens: thinkingBudgetTokens(maxTokens) };
  }
  if (!isRecord(clientThinking)) {
    throw badRequest('invalid_thinking', 'thinking must be an object such as {"type": "enabled"}.');
  }
  switch (clientThinking.type) {
    case 'adaptive':
      return { type: 'adaptive' };
    case 'enabled': {
      const budget = clientThinking.budget_tokens;
      if (budget === undefined || budget === null) {
        return { type: 'enabled', budget_tokens: thinkingBudgetTokens(maxTokens) };
      }
      const stated = clientMaxTokens ?? maxTokens;
      if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1 || budget >= stated) {
        throw badRequest(
          'invalid_thinking_budget',
          `thinking.budget_tokens must be a positive integer below max_tokens (${stated}).`,
        );
      }
      return { type: 'enabled', budget_tokens: budget < maxTokens ? budget : thinkingBudgetTokens(maxTokens) };
    }
    default:
      throw badRequest('invalid_thinking', 'thinking.type must be "enabled" or "adaptive"; thinking is required.');
  }
}

const useAutoAdvice =
  'Use tool_choice "auto" to let the model decide, and "none" after a tool result when no further call is wanted.';

function assertToolChoiceNotForced(toolChoice: unknown): void {
  const type = isRecord(toolChoice) ? toolChoice.type : undefined;
  if (type !== 'any' && type !== 'tool') return;
  throw badRequest(
    'forced_tool_choice_unsupported',
    `A tool_choice that forces a tool call (messages "any" or "tool", chat "required" or a named function) is not supported: this model runs in thinking mode, which cannot be forced to call a tool. ${useAutoAdvice}`,
  );
}
