import type { LoadedUpstreamWire } from '../../translation/client-wire-reach.ts';

/**
 * The one door to the Bedrock transport (bedrock-transport.ts: signer, event-stream codec, Converse): loaded on the
 * first request to Bedrock, once per process. Whatever loads it (an `import()` of a file beside the function's
 * entry, say) changes here alone.
 */
export function loadBedrockTransport(): Promise<typeof import('./bedrock-transport.ts')> {
  return import('./bedrock-transport.ts');
}

/** Converse on a Bedrock connection, with the hop that reaches it: a reach's lazy wire (client-wire-reach.ts). */
export async function loadBedrockConverse(): Promise<LoadedUpstreamWire> {
  return (await loadBedrockTransport()).bedrockConverseReach;
}
