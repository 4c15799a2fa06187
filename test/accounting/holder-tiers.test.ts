import { describe, expect, it } from 'vitest';
import { holderDailyRequestLimit, holderRequestsPerDay } from '../../shared/accounting/holder-tiers.ts';
import { catalogModels } from '../../shared/catalog/catalog-data.ts';

const now = new Date('2026-11-21T12:00:00Z');
const fresh = (usd: number) => ({ usd, at: '2026-11-21T11:00:00Z' });
const entry = (publicId: string) => catalogModels.find((model) => model.publicId === publicId);

describe('holder tiers (spec §2.3)', () => {
  it('maps holdings to the daily request count of the highest tier reached', () => {
    expect(holderRequestsPerDay(fresh(9.99), now)).toBeUndefined();
    expect(holderRequestsPerDay(fresh(10), now)).toBe(10);
    expect(holderRequestsPerDay(fresh(99), now)).toBe(10);
    expect(holderRequestsPerDay(fresh(100), now)).toBe(20);
    expect(holderRequestsPerDay(fresh(1000), now)).toBe(100);
    expect(holderRequestsPerDay(fresh(1e9), now)).toBe(100);
  });

  it('treats holdings older than 24 hours, or none, as unknown: below every tier', () => {
    expect(holderRequestsPerDay({ usd: 5000, at: '2026-11-20T11:59:59Z' }, now)).toBeUndefined();
    expect(holderRequestsPerDay({ usd: 5000, at: '2026-11-20T12:00:00Z' }, now)).toBe(100);
    expect(holderRequestsPerDay(undefined, now)).toBeUndefined();
  });

  it('covers Beta 4 31B, is paused for the four alpha models and covers nothing else', () => {
    expect(holderDailyRequestLimit(entry('beta/beta-4-31b'), fresh(100), now)).toBe(20);
    for (const id of [
      'alpha/alpha-k3',
      'alpha/alpha-k3-256k',
      'alpha/alpha-k2.7-code',
      'alpha/alpha-k2.7-code-highspeed',
    ]) {
      expect(() => holderDailyRequestLimit(entry(id), fresh(1000), now)).toThrow(
        expect.objectContaining({ status: 403, code: 'holder_perk_paused' }),
      );
    }
    expect(() => holderDailyRequestLimit(entry('gamma/gamma'), fresh(1000), now)).toThrow(
      expect.objectContaining({ code: 'holder_model_not_covered' }),
    );
    expect(() => holderDailyRequestLimit(undefined, fresh(1000), now)).toThrow(
      expect.objectContaining({ code: 'holder_model_not_covered' }),
    );
    expect(() => holderDailyRequestLimit(entry('beta/beta-4-31b'), fresh(1), now)).toThrow(
      expect.objectContaining({ status: 403, code: 'holder_tier_insufficient' }),
    );
  });
});
