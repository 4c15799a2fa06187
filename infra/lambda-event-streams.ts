/**
 * Stands in for `@smithy/core/event-streams` in the Lambda bundles (infra/lambda-bundling.ts aliases it here). The
 * SDK's HTTP protocol loads the event-stream codec only for an operation that streams events; DynamoDB and Secrets
 * Manager have none, yet esbuild inlines the dynamically imported codec (about 15 KB) into every bundle. Should a
 * call ever need it, it fails here at once rather than misbehave.
 *
 * The codec itself (frames and their CRCs) is the one part the gateway uses, to read Bedrock's streams
 * (shared/wires/bedrock/bedrock-event-stream.ts, through @smithy/eventstream-codec, which re-exports these names
 * from here): each is re-exported from its own module, without the SDK's serde around it, and esbuild keeps only
 * what is imported.
 */
// @ts-expect-error: the SDK publishes no declarations per file; @smithy/eventstream-codec types these names.
export { EventStreamCodec } from '../node_modules/@smithy/core/dist-es/submodules/event-streams/eventstream-codec/EventStreamCodec.js';
// @ts-expect-error: the SDK publishes no declarations per file; @smithy/eventstream-codec types these names.
export { HeaderMarshaller } from '../node_modules/@smithy/core/dist-es/submodules/event-streams/eventstream-codec/HeaderMarshaller.js';
// @ts-expect-error: the SDK publishes no declarations per file; @smithy/eventstream-codec types these names.
export { Int64 } from '../node_modules/@smithy/core/dist-es/submodules/event-streams/eventstream-codec/Int64.js';
// @ts-expect-error: the SDK publishes no declarations per file; @smithy/eventstream-codec types these names.
export { MessageDecoderStream } from '../node_modules/@smithy/core/dist-es/submodules/event-streams/eventstream-codec/MessageDecoderStream.js';
// @ts-expect-error: the SDK publishes no declarations per file; @smithy/eventstream-codec types these names.
export { MessageEncoderStream } from '../node_modules/@smithy/core/dist-es/submodules/event-streams/eventstream-codec/MessageEncoderStream.js';
// @ts-expect-error: the SDK publishes no declarations per file; @smithy/eventstream-codec types these names.
export { SmithyMessageDecoderStream } from '../node_modules/@smithy/core/dist-es/submodules/event-streams/eventstream-codec/SmithyMessageDecoderStream.js';
// @ts-expect-error: the SDK publishes no declarations per file; @smithy/eventstream-codec types these names.
export { SmithyMessageEncoderStream } from '../node_modules/@smithy/core/dist-es/submodules/event-streams/eventstream-codec/SmithyMessageEncoderStream.js';

function notBundled(): never {
  throw new Error('the AWS SDK event-stream codec is not bundled into the gateway functions');
}

export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}

export const eventStreamSerdeProvider = notBundled;
