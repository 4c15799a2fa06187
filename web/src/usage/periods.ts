import type { PeriodId } from '../usage-types.ts';

const periodNames: Record<PeriodId, string> = {
  today: 'Today',
  '24h': '24 hours',
  '7d': '7 days',
  '14d': '14 days',
  '30d': '30 days',
  '60d': '60 days',
};

export function periodName(period: PeriodId): string {
  return periodNames[period];
}
