import { forbidden } from '../http/gateway-error.ts';
import type { Policy } from '../store/control-items.ts';
import type { Principal } from './principal.ts';

/** Member policy ∩ key policy (spec §5 rule 5): lists intersect, numeric caps take the smaller. */
export interface EffectivePolicy {
  providers: string[] | undefined;
  models: string[] | undefined;
  maxOutput: number | undefined;
}

export function effectivePolicy(member: Policy, key: Policy): EffectivePolicy {
  return {
    providers: intersect(member.providers, key.providers),
    models: intersect(member.models, key.models),
    maxOutput: smaller(member.maxOutput, key.maxOutput),
  };
}

function intersect(first: string[] | undefined, second: string[] | undefined): string[] | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return first.filter((item) => second.includes(item));
}

function smaller(first: number | undefined, second: number | undefined): number | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return Math.min(first, second);
}

export function allowsModel(policy: EffectivePolicy, provider: string, publicId: string): boolean {
  return (
    (policy.providers === undefined || policy.providers.includes(provider)) &&
    (policy.models === undefined || policy.models.includes(publicId))
  );
}

export function authorizeModel(principal: Principal, provider: string, publicId: string): EffectivePolicy {
  const policy = effectivePolicy(principal.member.policy, principal.keyPolicy);
  if (policy.providers !== undefined && !policy.providers.includes(provider)) {
    throw forbidden('provider_denied', `This key may not use the provider "${provider}".`);
  }
  if (policy.models !== undefined && !policy.models.includes(publicId)) {
    throw forbidden('model_denied', `This key may not use the model "${publicId}".`);
  }
  return policy;
}
