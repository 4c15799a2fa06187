import { geminiUpstreamWire } from '../../wires/gemini/gemini-upstream-wire.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';

/** A generate-content request reaches only a Gemini upstream, untranslated. */
export const geminiReach: ClientWireReach = {
  hops: {},
  // The function's own wire comes with it: its requests, passed through, import nothing more.
  upstreamWires: { gemini: async () => geminiUpstreamWire },
};
