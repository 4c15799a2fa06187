/**
 * Everything of Amazon Bedrock that only a request to Bedrock needs, in one module: the SigV4 signer (with the AWS
 * credential chain), the event-stream codec, and Converse — its wire and the chat-to-converse translation. Nothing
 * else imports these files statically: they are reached only through this module, which only Bedrock's own code
 * imports (shared/translation/client-reach/bedrock-reach.ts, itself loaded on a process's first Bedrock request,
 * and `loadBedrockTransport()`), so none of it is in what a function's cold start loads (docs/bundles.md).
 */

export { chatToConverseHop } from '../../translation/chat-to-converse/chat-to-converse-hop.ts';
export { bedrockConverseTransportWire } from './bedrock-converse-transport-wire.ts';
export { bedrockEventStreamAsSse } from './bedrock-event-stream.ts';
export { signedForBedrock } from './bedrock-signing.ts';
