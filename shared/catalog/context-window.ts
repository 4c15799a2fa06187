import { type InputEstimate, surelyHeldInputTokens } from '../accounting/estimate-input-tokens.ts';
import { badRequest } from '../http/gateway-error.ts';
import type { ModelLimits } from './model-limits.ts';

/**
 * Refuses a request that surely cannot fit the model's context window (spec §2.2; or the one its connection
 * declares, shared/catalog/model-limits.ts), before anything is reserved.
 * The input estimate is deliberately high (up to `maximumRatio` times the real count), so only its lower bound
 * is held against the window, media left out (a vendor may shrink them): a request this refuses is over it for
 * certain; one near the edge goes upstream, whose own refusal is relayed with its status.
 */
export function assertFitsContextWindow(
  model: { publicId: string; limits: Pick<ModelLimits, 'contextWindow'> },
  inputEstimate: InputEstimate,
  requestedOutput: number | undefined,
): void {
  const window = model.limits.contextWindow;
  if (window === null) return;
  const surelyAtLeast = surelyHeldInputTokens(inputEstimate) + (requestedOutput ?? 0);
  if (surelyAtLeast > window) {
    throw badRequest(
      'context_window_exceeded',
      `The request needs more than ${window} tokens of context, the window of ${model.publicId}.`,
    );
  }
}
