import type { ActivityRow } from './usage-activity.ts';
import { type BucketSize, bucketOf, periodBuckets, type UsagePeriod } from './usage-period.ts';

export interface ProviderSeries {
  provider: string;
  /** One value per bucket, aligned with `UsageSeries.buckets`. */
  requests: number[];
  failed: number[];
  /** Reported tokens only; an unknown breakdown adds nothing (the totals say how many reported). */
  inputTokens: number[];
  outputTokens: number[];
}

export interface UsageSeries {
  bucket: BucketSize;
  /** Bucket starts (ISO, UTC), oldest first; every bucket of the period, empty ones included. */
  buckets: string[];
  providers: ProviderSeries[];
}

/** Requests and tokens per hour or day, split by provider, for the charts. */
export function buildSeries(period: UsagePeriod, rows: readonly ActivityRow[]): UsageSeries {
  const buckets = periodBuckets(period);
  const position = new Map(buckets.map((bucket, index) => [bucket, index]));
  const byProvider = new Map<string, ProviderSeries>();
  const zeros = () => buckets.map(() => 0);
  for (const row of rows) {
    const index = position.get(bucketOf(period, `${row.hour}:00:00.000Z`));
    if (index === undefined) continue;
    let series = byProvider.get(row.provider);
    if (!series) {
      series = {
        provider: row.provider,
        requests: zeros(),
        failed: zeros(),
        inputTokens: zeros(),
        outputTokens: zeros(),
      };
      byProvider.set(row.provider, series);
    }
    series.requests[index] = (series.requests[index] ?? 0) + row.requests;
    series.failed[index] = (series.failed[index] ?? 0) + row.failed;
    series.inputTokens[index] = (series.inputTokens[index] ?? 0) + row.inputTokens;
    series.outputTokens[index] = (series.outputTokens[index] ?? 0) + row.outputTokens;
  }
  const providers = [...byProvider.values()].sort((a, b) => a.provider.localeCompare(b.provider));
  return { bucket: period.bucket, buckets, providers };
}
