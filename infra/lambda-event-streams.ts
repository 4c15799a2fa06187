/**
 * Stands in for `@smithy/core/event-streams` in the Lambda bundles (infra/lambda-bundling.ts aliases it here). The
 * SDK's HTTP protocol loads the event-stream codec only for an operation that streams events; DynamoDB and Secrets
 * Manager have none, yet esbuild inlines the dynamically imported codec (about 15 KB) into every bundle. Should a
 * call ever need it, it fails here at once rather than misbehave.
 */
function notBundled(): never {
  throw new Error('the AWS SDK event-stream codec is not bundled into the gateway functions');
}

export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}

export const eventStreamSerdeProvider = notBundled;
