import type { UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import { type BedrockWire, type ClientWire, isBedrockFamilyWire, type UpstreamWire } from '../wires/wire-names.ts';
import { type BedrockHopName, isBedrockHop, type TranslationHopName, translationPath } from './translation-paths.ts';
import type { AnyHop, TranslationHops } from './wire-translation.ts';

type AnyUpstreamWire = UpstreamWireFormat<unknown, unknown>;

/**
 * Everything Bedrock: its wires and the hops that lead to them. One module holds them
 * (client-reach/bedrock-reach.ts), imported only with `await import()` (load-bedrock-reach.ts): in a Lambda
 * bundle it is a file of its own that a cold start does not load (docs/bundles.md), and every module only it
 * imports — the signer, the event-stream codec, the Converse format and translators — goes there with it. The
 * types below keep it that way: a Bedrock wire or a hop to one cannot be put in a function's own reach.
 */
export interface BedrockReach {
  readonly hops: { readonly [Name in BedrockHopName]: AnyHop };
  readonly upstreamWires: { readonly [Wire in BedrockWire]: AnyUpstreamWire };
}

/** A hop, imported on the first request that takes it (client-reach/load-hops.ts). */
export type LoadHop = () => Promise<AnyHop>;

/** An upstream wire, imported on the first request to a connection of it (wires/load-upstream-wires.ts). */
export type LoadUpstreamWire = () => Promise<AnyUpstreamWire>;

/**
 * What one inference function carries to reach its connections: the upstream wires its client wire's requests can
 * go to, and the hops on the way. Each function hands its own to handleInference (client-reach/), rather than the
 * pipeline importing every wire and translator, so that a Lambda bundle holds only what its requests can use
 * (docs/bundles.md); each wire and hop, and Bedrock's code, is loaded on first use, so a cold start loads none.
 * test/translation/client-reach.test.ts proves each covers every path its wire can take.
 */
export interface ClientWireReach {
  readonly hops: { readonly [Name in Exclude<TranslationHopName, BedrockHopName>]?: LoadHop };
  readonly upstreamWires: { readonly [Wire in Exclude<UpstreamWire, BedrockWire>]?: LoadUpstreamWire };
  /** Where this client wire's requests can reach Bedrock: how its code is loaded, on the first such request. */
  readonly bedrock?: () => Promise<BedrockReach>;
}

/**
 * What a request from this client wire to a connection of that wire needs: the upstream wire and the hops on the
 * way, each loaded on first use.
 */
export async function reachTo(
  reach: ClientWireReach,
  clientWire: ClientWire,
  wire: UpstreamWire,
): Promise<{ upstreamWire: AnyUpstreamWire; hops: TranslationHops }> {
  // Routing only picks a connection the client wire reaches (translation-paths.ts), each in its function's reach.
  const unreachable = () => new Error(`the ${wire} upstream wire is not in the ${clientWire} function's reach`);
  const path = translationPath(clientWire, wire);
  if (!path) throw unreachable();
  const bedrock = isBedrockFamilyWire(wire) || path.some(isBedrockHop) ? await reach.bedrock?.() : undefined;
  const upstreamWire = isBedrockFamilyWire(wire) ? bedrock?.upstreamWires[wire] : await reach.upstreamWires[wire]?.();
  if (!upstreamWire) throw unreachable();
  const hops: { [Name in TranslationHopName]?: AnyHop } = {};
  for (const name of path) {
    const hop = isBedrockHop(name) ? bedrock?.hops[name] : await reach.hops[name]?.();
    if (!hop) throw new Error(`the ${name} translation hop is not in the ${clientWire} function's reach`);
    hops[name] = hop;
  }
  return { upstreamWire, hops };
}
