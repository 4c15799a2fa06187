import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { readActivity } from './read-activity.ts';
import { buildRoutingMap, type RoutingMap } from './routing-map.ts';
import type { BucketSize, UsagePeriod } from './usage-period.ts';
import type { UsageQuery, UsageScope } from './usage-query.ts';
import { buildSeries, type UsageSeries } from './usage-series.ts';
import { sumTotals, type UsageTotals } from './usage-totals.ts';
import type { RecordSelection } from './usage-visibility.ts';
import { keyLabeller, listVisibleKeys } from './visible-keys.ts';

export interface PeriodView {
  id: UsagePeriod['id'];
  start: string;
  end: string;
  bucket: BucketSize;
}

export interface AppliedFilters {
  scope: UsageScope;
  keyId: string | null;
  providers: string[];
}

export interface UsageSummary {
  period: PeriodView;
  filters: AppliedFilters;
  /** Every provider with activity in the period for this scope and key, before the provider filter. */
  providers: string[];
  totals: UsageTotals;
  series: UsageSeries;
  routingMap: RoutingMap;
  generatedAt: string;
}

export function periodView(period: UsagePeriod): PeriodView {
  return {
    id: period.id,
    start: period.start.toISOString(),
    end: period.end.toISOString(),
    bucket: period.bucket,
  };
}

export function appliedFilters(query: UsageQuery): AppliedFilters {
  return { scope: query.scope, keyId: query.keyId ?? null, providers: query.providers };
}

/** Totals, charts and routing map of one period, all from the same activity rows and the same filters. */
export async function buildUsageSummary(
  services: GatewayServices,
  principal: Principal,
  query: UsageQuery,
  period: UsagePeriod,
  selection: RecordSelection,
): Promise<UsageSummary> {
  const [activity, keys] = await Promise.all([
    readActivity(services, period, selection),
    listVisibleKeys(services.store, principal, query.scope),
  ]);
  const providers = [...new Set(activity.map((row) => row.provider))].sort();
  const wanted = new Set(selection.providers);
  const selected = wanted.size === 0 ? activity : activity.filter((row) => wanted.has(row.provider));
  return {
    period: periodView(period),
    filters: appliedFilters(query),
    providers,
    totals: sumTotals(selected),
    series: buildSeries(period, selected),
    routingMap: buildRoutingMap(selected, keyLabeller(keys)),
    generatedAt: services.now().toISOString(),
  };
}
