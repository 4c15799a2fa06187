import { badRequest } from '../http/gateway-error.ts';
import { bedrockRuntimeUrl } from '../wires/bedrock/bedrock-runtime-api.ts';
import type { UpstreamWire } from '../wires/wire-names.ts';
import type { ModelDeclaration } from './admin-schemas.ts';

/**
 * Where a new connection is reached and whether it needs a credential. Every wire but Bedrock's takes a base URL
 * and an API key. A Bedrock connection names its region (the SigV4 scope), its base URL defaulting to the region's
 * runtime endpoint, and holds a credential only when the account uses Bedrock API keys; it lists its models, any of
 * Bedrock's: Anthropic's are called through InvokeModel, the others through Converse (shared/wires/model-wire.ts).
 */
export function connectionAddress(
  wire: UpstreamWire,
  baseUrl: string | undefined,
  region: string | undefined,
  models: readonly ModelDeclaration[],
): { baseUrl: string; credentialRequired: boolean } {
  if (wire !== 'bedrock') {
    if (region !== undefined) throw badRequest('invalid_request', 'Only a Bedrock connection has a region.');
    if (baseUrl === undefined) throw badRequest('invalid_request', 'A connection of this wire needs its baseUrl.');
    return { baseUrl, credentialRequired: true };
  }
  if (region === undefined) throw badRequest('invalid_request', 'A Bedrock connection needs its AWS region.');
  if (models.length === 0) {
    throw badRequest('invalid_request', 'A Bedrock connection lists the Bedrock model ids it serves (models).');
  }
  return { baseUrl: baseUrl ?? bedrockRuntimeUrl(region), credentialRequired: false };
}
