import { holderPolicyRecord } from '../accounting/holder-policy-record.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { gatewayEndpoint } from '../http/gateway-endpoint.ts';
import { badRequest } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { checkRequestEnvelope } from '../http/read-request.ts';
import { renderFailure } from '../http/render-error.ts';
import { isAnthropicClient } from '../wires/anthropic-messages/anthropic-models.ts';

/**
 * `GET /v1/holder-policy`: the holder policy record (spec §2.3) for any valid key, paid or holder, read fresh like
 * every route without an admission write. Never throws: refusals come in the caller's envelope.
 */
export async function handleHolderPolicy(services: GatewayServices, request: GatewayRequest): Promise<GatewayResponse> {
  const envelope = isAnthropicClient(request.headers) ? 'anthropic' : 'openai';
  try {
    checkRequestEnvelope(request, services.config.bodyLimitBytes);
    await authenticate(services, request.headers);
    const endpoint = gatewayEndpoint(services.config, request.headers);
    if (endpoint === undefined) {
      throw badRequest(
        'invalid_host',
        'The request carries no Host header, so the gateway cannot say its own address; send one, or set GATEWAY_PUBLIC_URL.',
      );
    }
    const record = holderPolicyRecord({ holderTag: services.config.holderTag, endpoint });
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(record) };
  } catch (error) {
    return renderFailure(error, envelope, { operation: 'holder policy read', requestId: request.requestId });
  }
}
