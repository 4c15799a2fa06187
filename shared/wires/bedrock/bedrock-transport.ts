import { chatToConverseHop } from '../../translation/chat-to-converse/chat-to-converse-hop.ts';
import type { LoadedUpstreamWire } from '../../translation/client-wire-reach.ts';
import { bedrockConverseTransportWire } from './bedrock-converse-transport-wire.ts';

/**
 * Everything of Amazon Bedrock that only a request to Bedrock needs, in one module: the SigV4 signer (with the AWS
 * credential chain), the event-stream codec, and Converse — its wire and the chat-to-converse translation. Nothing
 * else imports these files statically: they are reached only through `loadBedrockTransport()`
 * (load-bedrock-transport.ts), so this module can be built apart from each function's entry and loaded on the first
 * Bedrock request (docs/bundles.md).
 */

export { bedrockEventStreamAsSse } from './bedrock-event-stream.ts';
export { signedForBedrock } from './bedrock-signing.ts';

/** Converse and the hop that reaches it from chat (the hub); Responses and messages clients come through chat. */
export const bedrockConverseReach: LoadedUpstreamWire = {
  upstreamWire: bedrockConverseTransportWire,
  hops: { 'chat-to-converse': chatToConverseHop },
};
