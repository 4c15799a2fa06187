import type { UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import type { UpstreamWire } from '../wires/wire-names.ts';
import type { TranslationHops } from './wire-translation.ts';

/** An upstream wire and the hops that reach it, as a module loaded on first use hands them over. */
export interface LoadedUpstreamWire {
  readonly upstreamWire: UpstreamWireFormat<unknown, unknown>;
  readonly hops: TranslationHops;
}

/**
 * What one inference function carries to reach its connections: the upstream wires its client wire's requests can
 * go to, and the hops on the way. Each function hands its own to handleInference (client-reach/), rather than the
 * pipeline importing every wire and translator, so that a Lambda bundle holds only what its requests can use
 * (docs/bundles.md). test/translation/client-reach.test.ts proves each covers every path its wire can take.
 */
export interface ClientWireReach {
  readonly hops: TranslationHops;
  readonly upstreamWires: { readonly [Wire in UpstreamWire]?: UpstreamWireFormat<unknown, unknown> };
  /**
   * Wires loaded only when a request goes to one, with the hops that reach them: Bedrock's Converse, which comes
   * with the Bedrock transport (shared/wires/bedrock/load-bedrock-transport.ts), so none of it is in the module
   * graph a function evaluates at start.
   */
  readonly lazyUpstreamWires?: { readonly [Wire in UpstreamWire]?: () => Promise<LoadedUpstreamWire> };
}

/** The upstream wire a request goes to and the hops it may take there, loading the wire if it is a lazy one. */
export async function upstreamWireInReach(
  reach: ClientWireReach,
  wire: UpstreamWire,
): Promise<LoadedUpstreamWire | undefined> {
  const carried = reach.upstreamWires[wire];
  if (carried) return { upstreamWire: carried, hops: reach.hops };
  const load = reach.lazyUpstreamWires?.[wire];
  if (!load) return undefined;
  const loaded = await load();
  return { upstreamWire: loaded.upstreamWire, hops: { ...reach.hops, ...loaded.hops } };
}
