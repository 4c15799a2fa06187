import { catalogModels, holderPolicyModelId } from '../catalog/catalog-data.ts';
import { holderTiers } from './holder-tiers.ts';

/** What the holder daily count covers, and what it does not (spec §2.3). */
export const holderLimitScope =
  "Counts only the holder daily request count; the upstream provider's native model and API limits still apply.";

/**
 * The holder policy record of spec §2.3, exactly its fields: the model the perk covers (by the id the record gives
 * it, which requests accept), where to call it, how holder keys begin, and the tiers.
 */
export function holderPolicyRecord(input: { holderTag: string; endpoint: string }) {
  const modelIds = catalogModels.map(holderPolicyModelId).filter((id) => id !== undefined);
  const [modelId] = modelIds;
  if (modelId === undefined || modelIds.length > 1) throw new Error('the catalog must give one holder perk model');
  return {
    model_id: modelId,
    endpoint: input.endpoint,
    wallet_key_prefix: `sk-${input.holderTag}-`,
    tiers: holderTiers.map((tier) => ({
      holdings_usd_24h_min: tier.holdingsUsd24hMin,
      requests_per_day: tier.requestsPerDay,
    })),
    limit_scope: holderLimitScope,
  };
}
