import { bedrockConverseTransportWire, chatToConverseHop } from '../../wires/bedrock/bedrock-transport.ts';
import { bedrockUpstreamWire } from '../../wires/bedrock/bedrock-upstream-wire.ts';
import type { BedrockReach } from '../client-wire-reach.ts';

/**
 * Every Bedrock wire and every hop to one: Anthropic's models through InvokeModel, the others through Converse over
 * the Bedrock transport (signing, event-stream framing). Never imported statically by a function:
 * load-bedrock-reach.ts imports it with `await import()`, so in a Lambda bundle it is a file of its own, loaded on
 * the first Bedrock request, and whatever only it imports goes with it (docs/bundles.md). Its type asks for every
 * Bedrock wire and hop.
 */
export const bedrockReach: BedrockReach = {
  hops: { 'chat-to-converse': chatToConverseHop },
  upstreamWires: {
    bedrock: bedrockUpstreamWire,
    'bedrock-converse': bedrockConverseTransportWire,
  },
};
