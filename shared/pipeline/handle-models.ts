import { authenticate } from '../auth/authenticate.ts';
import { allowsModel, effectivePolicy } from '../auth/effective-policy.ts';
import { knownModels } from '../catalog/known-models.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { checkRequestEnvelope } from '../http/read-request.ts';
import { renderFailure } from '../http/render-error.ts';
import { cachedConnections } from './route-request.ts';

/** `GET /v1/models`: the models the member ∩ key policy allows, each with the wires it can be called with. */
export async function handleModels(services: GatewayServices, request: GatewayRequest): Promise<GatewayResponse> {
  try {
    checkRequestEnvelope(request, services.config.bodyLimitBytes);
    const principal = await authenticate(services, request.headers);
    const policy = effectivePolicy(principal.member.policy, principal.keyPolicy);
    const models = knownModels(await cachedConnections(services)).filter((model) =>
      allowsModel(policy, model.provider, model.publicId),
    );
    const data = models.map((model) => ({
      id: model.publicId,
      object: 'model',
      created: 0,
      owned_by: model.provider,
      wires: model.wires,
    }));
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ object: 'list', data }),
    };
  } catch (error) {
    return renderFailure(error, 'openai', { operation: 'models read', requestId: request.requestId });
  }
}
