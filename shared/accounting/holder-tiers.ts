import type { CatalogModel } from '../catalog/catalog-data.ts';
import { forbidden, GatewayError } from '../http/gateway-error.ts';

/**
 * The holder policy of spec §2.3, as data: a wallet holding at least `holdingsUsd24hMin` (USD, over the last 24
 * hours) may make `requestsPerDay` holder requests per UTC day. The count covers holder requests only; the
 * upstream provider's own limits still apply.
 */
export const holderTiers = [
  { holdingsUsd24hMin: 10, requestsPerDay: 10 },
  { holdingsUsd24hMin: 100, requestsPerDay: 20 },
  { holdingsUsd24hMin: 1000, requestsPerDay: 100 },
] as const;

/** A holdings figure older than this is unknown, and unknown holdings stand below every tier. */
const holdingsMaxAgeMs = 24 * 60 * 60 * 1000;

export interface Holdings {
  usd: number;
  /** When the figure was measured (ISO 8601). */
  at: string;
}

/** The holder's daily request count for current holdings; undefined below the lowest tier or when unknown. */
export function holderRequestsPerDay(holdings: Holdings | undefined, now: Date): number | undefined {
  if (!holdings || now.getTime() - Date.parse(holdings.at) > holdingsMaxAgeMs) return undefined;
  let allowance: number | undefined;
  for (const tier of holderTiers) {
    if (holdings.usd >= tier.holdingsUsd24hMin) allowance = tier.requestsPerDay;
  }
  return allowance;
}

/**
 * The daily request limit a holder key's request is admitted under, or the 403 that says why not: the perk
 * covers Beta 4 31B and is paused for the alpha models.
 */
export function holderDailyRequestLimit(
  catalogEntry: CatalogModel | undefined,
  holdings: Holdings | undefined,
  now: Date,
): number {
  const verdict = holderVerdict(catalogEntry, holdings, now);
  if (verdict instanceof GatewayError) throw verdict;
  return verdict;
}

/** Whether a holder key may call the model now: what a model list shows a holder key. */
export function holderMayCall(catalogEntry: CatalogModel | undefined, holdings: Holdings | undefined, now: Date) {
  return !(holderVerdict(catalogEntry, holdings, now) instanceof GatewayError);
}

/** The daily request limit, or the refusal, as a value: a model list asks without refusing anything. */
function holderVerdict(
  catalogEntry: CatalogModel | undefined,
  holdings: Holdings | undefined,
  now: Date,
): number | GatewayError {
  const perk = catalogEntry?.holderPerk ?? 'none';
  switch (perk) {
    case 'paused':
      return forbidden(
        'holder_perk_paused',
        `The holder perk is paused for ${catalogEntry?.publicId}; use a paid gateway key for this model.`,
      );
    case 'none':
      return forbidden('holder_model_not_covered', 'Holder keys may only call the models the holder perk covers.');
    case 'available': {
      const limit = holderRequestsPerDay(holdings, now);
      if (limit === undefined) {
        const lowest = holderTiers[0].holdingsUsd24hMin;
        return forbidden(
          'holder_tier_insufficient',
          `The wallet's holdings over the last 24 hours are below the lowest tier (${lowest} USD) or unknown.`,
        );
      }
      return limit;
    }
    default: {
      const unknownPerk: never = perk;
      throw new Error(`unknown holder perk ${String(unknownPerk)}`);
    }
  }
}
