import { bedrockUpstreamWire } from '../../wires/bedrock/bedrock-upstream-wire.ts';
import { bedrockConverseUpstreamWire } from '../../wires/bedrock-converse/bedrock-converse-upstream-wire.ts';
import { chatToConverseHop } from '../chat-to-converse/chat-to-converse-hop.ts';
import type { BedrockReach } from '../client-wire-reach.ts';

/**
 * Every Bedrock wire and every hop to one. Never imported statically by a function: load-bedrock-reach.ts imports
 * it with `await import()`, so in a Lambda bundle it is a file of its own, loaded on the first Bedrock request, and
 * whatever only it imports goes with it (docs/bundles.md). Its type asks for every Bedrock wire and hop.
 */
export const bedrockReach: BedrockReach = {
  hops: { 'chat-to-converse': chatToConverseHop },
  upstreamWires: {
    bedrock: bedrockUpstreamWire,
    'bedrock-converse': bedrockConverseUpstreamWire,
  },
};
