import { loadGeminiUpstreamWire } from '../../wires/load-upstream-wires.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';

/** A generate-content request reaches only a Gemini upstream, untranslated. */
export const geminiReach: ClientWireReach = {
  hops: {},
  upstreamWires: { gemini: loadGeminiUpstreamWire },
};
