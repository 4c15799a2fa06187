import type { ModelLimits } from '../catalog/model-limits.ts';
import { badRequest, forbidden } from '../http/gateway-error.ts';

export interface OutputAllowanceInput {
  /** What the request asks for (`max_tokens` and the like); undefined when it states none. */
  requested: number | undefined;
  modelMaxOutput: number | null;
  policyMaxOutput: number | undefined;
  defaultCap: number;
}

/**
 * The output tokens to reserve: the smallest stated cap among request, model and policy, or the configured
 * default when none is stated. Asking for more than policy allows is a 403 (spec §5 rule 7); more than the
 * model can produce is a 400.
 */
export function outputAllowance(input: OutputAllowanceInput): number {
  const { requested, modelMaxOutput, policyMaxOutput } = input;
  if (requested !== undefined && policyMaxOutput !== undefined && requested > policyMaxOutput) {
    throw forbidden(
      'output_policy_denied',
      `The request asks for ${requested} output tokens; this key may ask for at most ${policyMaxOutput}.`,
    );
  }
  if (requested !== undefined && modelMaxOutput !== null && requested > modelMaxOutput) {
    throw badRequest(
      'max_output_exceeded',
      `The request asks for ${requested} output tokens; the model produces at most ${modelMaxOutput}.`,
    );
  }
  const stated = [requested, modelMaxOutput ?? undefined, policyMaxOutput].filter(
    (value): value is number => value !== undefined,
  );
  return stated.length > 0 ? Math.min(...stated) : input.defaultCap;
}

/**
 * What a request asks for once its connection's declared largest output has capped it. A client calling a model
 * its SDK does not know sends the SDK's own default (the AI SDK: 128,000 for an unknown messages model), which no
 * client could have known to lower; the declared limit is what the model can produce, so the request is read as
 * asking for that, and is admitted and sent upstream with it. Above a catalog limit, which the model lists publish,
 * the request stays as asked (and `outputAllowance` refuses it).
 */
export function cappedRequestedOutput(
  requested: number | undefined,
  limits: Pick<ModelLimits, 'maxOutput' | 'maxOutputDeclared'>,
): number | undefined {
  if (requested === undefined || !limits.maxOutputDeclared || limits.maxOutput === null) return requested;
  return Math.min(requested, limits.maxOutput);
}
