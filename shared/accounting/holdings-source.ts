import type { MemberProfile } from '../store/control-items.ts';
import type { Holdings } from './holder-tiers.ts';

/**
 * Where a holder wallet's holdings come from. The default reads the figure an administrator set with
 * `holder set` (kept on the wallet's member item, so it arrives with the cached principal at no extra read);
 * an on-chain or market-data source can take its place by implementing this interface.
 */
export interface HoldingsSource {
  holdingsFor(member: MemberProfile): Promise<Holdings | undefined>;
}

export const memberRecordHoldings: HoldingsSource = {
  holdingsFor: async (member) => member.holdings,
};
