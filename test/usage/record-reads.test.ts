import { describe, expect, it } from 'vitest';
import { recordReads } from '../../shared/usage/newest-records.ts';
import { resolvePeriod } from '../../shared/usage/usage-period.ts';
import type { RecordSelection } from '../../shared/usage/usage-visibility.ts';

const period = resolvePeriod('7d', new Date('2030-03-10T12:30:00.000Z'));
const team: RecordSelection = {
  memberId: undefined,
  keyId: undefined,
  providers: ['gamma'],
  nothingVisible: false,
};

describe('record reads of a period', () => {
  it("reads the team's day partitions newest first, bounded by the period", () => {
    const reads = recordReads(period, team);
    expect(reads.map((read) => read.partition)).toEqual(
      ['10', '09', '08', '07', '06', '05', '04'].map((day) => ({ index: 'day', day: `2030-03-${day}` })),
    );
    expect(reads[0]).toMatchObject({ from: '2030-03-04T00:00:00.000Z', to: '2030-03-10T23:59:59.999Z' });
  });

  it('skips the days without matching activity', () => {
    const reads = recordReads(period, team, new Set(['2030-03-09', '2030-03-05']));
    expect(reads.map((read) => read.partition)).toEqual([
      { index: 'day', day: '2030-03-09' },
      { index: 'day', day: '2030-03-05' },
    ]);
  });

  it("reads one member's index once, or only its active days", () => {
    const member = { ...team, memberId: 'mem_1' };
    expect(recordReads(period, member)).toEqual([
      {
        partition: { index: 'member', memberId: 'mem_1' },
        from: '2030-03-04T00:00:00.000Z',
        to: '2030-03-10T23:59:59.999Z',
      },
    ]);
    expect(recordReads(period, member, new Set(['2030-03-06']))).toEqual([
      {
        partition: { index: 'member', memberId: 'mem_1' },
        from: '2030-03-06T00:00:00.000Z',
        to: '2030-03-06T23:59:59.999Z',
      },
    ]);
  });
});
