/** The shares of the daily allowance that raise an alert unless configured otherwise: 80 % and 100 %. */
export const defaultAllowanceThresholds: readonly number[] = [0.8, 1];

/**
 * The thresholds a member's charged tokens have reached: every share whose token count (rounded up, so 80 % of
 * 1,001 tokens is reached at 801) the charge is at or past. The alert's deduplication keeps each to one event a day,
 * so "reached" rather than "crossed by this request" is exact whoever settles first.
 */
export function reachedThresholds(charged: number, dailyTokens: number, thresholds: readonly number[]): number[] {
  if (dailyTokens <= 0) return [];
  return thresholds.filter((share) => charged >= Math.ceil(share * dailyTokens));
}
