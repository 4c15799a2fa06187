import type { UpstreamWire } from '../wire-names.ts';

/**
 * Where Amazon Bedrock's runtime takes each operation, and what separates Anthropic's models (served in the
 * messages format by InvokeModel) from the rest. Model ids are Bedrock's own: foundation models
 * (`anthropic.claude-sonnet-4-5-20250929-v1:0`) and inference profiles (`us.anthropic.…`, `global.anthropic.…`).
 */

/** The regional endpoint: `https://bedrock-runtime.<region>.amazonaws.com` (a `--base-url` replaces it). */
export function bedrockRuntimeUrl(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

/** An AWS region name (`us-east-1`, `eu-central-2`, `us-gov-west-1`): what a SigV4 scope and a host name may hold. */
export const awsRegionPattern = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/** The messages-format version Bedrock's Anthropic models take in the body, in place of the header. */
export const bedrockAnthropicVersion = 'bedrock-2023-05-31';

/** The geography prefixes of Bedrock's cross-region inference profiles (`us.`, `eu.`, `apac.`, `global.`, …). */
const inferenceProfilePrefix = /^(?:[a-z]{2,6}(?:-[a-z]+)?)\./;

/**
 * The id an ARN names (`arn:aws:bedrock:us-east-1:…:inference-profile/us.anthropic.…` → `us.anthropic.…`,
 * `…:foundation-model/anthropic.…` → `anthropic.…`); a plain id as it is. An application inference profile's ARN
 * names an opaque id, which says nothing of the model behind it.
 */
function idOf(model: string): string {
  return model.startsWith('arn:') ? model.slice(model.lastIndexOf('/') + 1) : model;
}

/** An Anthropic model on Bedrock: `anthropic.…`, or an inference profile of one (`us.anthropic.…`), or their ARNs. */
export function isBedrockAnthropicModel(model: string): boolean {
  const id = idOf(model);
  return id.startsWith('anthropic.') || /^[a-z]{2,6}(?:-[a-z]+)?\.anthropic\./.test(id);
}

/**
 * The foundation model an inference profile routes to (`us.anthropic.x` → `anthropic.x`, an ARN → its model's id):
 * token counting takes foundation models only, and counting is the same wherever the profile would send the request.
 */
export function foundationModelOf(model: string): string {
  if (!isBedrockAnthropicModel(model)) return model;
  return idOf(model).replace(inferenceProfilePrefix, '');
}

export type BedrockOperation = 'invoke' | 'invoke-with-response-stream' | 'count-tokens';

/** `{base}/model/{model id, URL-encoded}/{operation}`: an id's `:` and `/` (an ARN's) are escaped, as the SDK does. */
export function bedrockModelUrl(baseUrl: string, model: string, operation: BedrockOperation): string {
  return `${baseUrl.replace(/\/+$/, '')}/model/${encodeURIComponent(model)}/${operation}`;
}

/** The wires whose connections have a region and may have no credential. */
export function isBedrockWire(wire: UpstreamWire): boolean {
  return wire === 'bedrock';
}
