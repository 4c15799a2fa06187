import type { UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import type { UpstreamWire } from '../wires/wire-names.ts';
import type { TranslationHops } from './wire-translation.ts';

/**
 * What one inference function carries to reach its connections: the upstream wires its client wire's requests can
 * go to, and the hops on the way. Each function hands its own to handleInference (client-reach/), rather than the
 * pipeline importing every wire and translator, so that a Lambda bundle holds only what its requests can use
 * (docs/bundles.md). test/translation/client-reach.test.ts proves each covers every path its wire can take.
 */
export interface ClientWireReach {
  readonly hops: TranslationHops;
  readonly upstreamWires: { readonly [Wire in UpstreamWire]?: UpstreamWireFormat<unknown, unknown> };
}
