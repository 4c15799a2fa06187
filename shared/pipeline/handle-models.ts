import { holderMayCall } from '../accounting/holder-tiers.ts';
import { authenticate } from '../auth/authenticate.ts';
import { effectivePolicy } from '../auth/effective-policy.ts';
import type { Principal } from '../auth/principal.ts';
import { availabilityOf, type CallerScope, callableModels, pageOfModels } from '../catalog/callable-models.ts';
import { chosenUpstream } from '../catalog/choose-connection.ts';
import { knownModels } from '../catalog/known-models.ts';
import { resolveModel } from '../catalog/resolve-model.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { badRequest, notFound } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { checkRequestEnvelope } from '../http/read-request.ts';
import { renderFailure } from '../http/render-error.ts';
import type { RouteMatch } from '../http/route-table.ts';
import {
  anthropicModelEntry,
  anthropicModelList,
  isAnthropicClient,
  readAnthropicModelListQuery,
} from '../wires/anthropic-messages/anthropic-models.ts';
import { geminiModelEntry, geminiModelList, readGeminiModelListQuery } from '../wires/gemini/gemini-models.ts';
import { openaiModelEntry, openaiModelList } from '../wires/openai-chat/openai-models.ts';
import type { ErrorEnvelope } from '../wires/wire-names.ts';
import { cachedConnections } from './route-request.ts';

/** The shape a caller's SDK reads a model list in: Google's on `/v1beta`, else Anthropic's for its clients. */
type ListShape = ErrorEnvelope;

function listShapeOf(request: GatewayRequest, route: RouteMatch): ListShape {
  if (route.route.wire === 'gemini-models') return 'gemini';
  return isAnthropicClient(request.headers) ? 'anthropic' : 'openai';
}

/**
 * The model lists and single-model reads: `GET /v1/models` and `/v1/models/<provider/model>` (OpenAI's shape with
 * `wires`, or Anthropic's for an Anthropic client) and `GET /v1beta/models` and `/v1beta/models/<provider/model>`
 * (generate-content's). Each lists only what the caller can call now (shared/catalog/callable-models.ts), on the
 * upstream the request chose (path prefix or `X-Gateway-Upstream`), else on each model's own. Authenticated fresh,
 * like every route without an admission write. Never throws: refusals come in the shape's own envelope.
 */
export async function handleModels(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
): Promise<GatewayResponse> {
  const shape = listShapeOf(request, route);
  try {
    checkRequestEnvelope(request, services.config.bodyLimitBytes);
    const read: ModelRead = {
      services,
      request,
      route,
      principal: await authenticate(services, request.headers),
      shape,
    };
    const body = route.route.match === 'exact' ? await listModels(read) : await readModel(read);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  } catch (error) {
    return renderFailure(error, shape, { operation: 'models read', requestId: request.requestId });
  }
}

/** One model list or model read, authenticated. */
interface ModelRead {
  services: GatewayServices;
  request: GatewayRequest;
  route: RouteMatch;
  principal: Principal;
  shape: ListShape;
}

async function callerScope(services: GatewayServices, principal: Principal): Promise<CallerScope> {
  const policy = effectivePolicy(principal.member.policy, principal.keyPolicy);
  if (!principal.holder) return { policy, holderMayCall: undefined };
  const holdings = await services.holdings.holdingsFor(principal.member);
  const now = services.now();
  return { policy, holderMayCall: (model) => holderMayCall(model.catalog, holdings, now) };
}

function upstreamChoice({ services, request, route }: ModelRead, modelUpstream: string | undefined) {
  return chosenUpstream(
    { modelUpstream, pathUpstream: route.pathUpstream, headerUpstream: request.headers['x-gateway-upstream'] },
    services.config.upstreamPrefixes,
  );
}

async function listModels(read: ModelRead): Promise<unknown> {
  const { services, request, principal, shape } = read;
  const anthropicQuery = shape === 'anthropic' ? readAnthropicModelListQuery(request.query) : undefined;
  const geminiQuery = shape === 'gemini' ? readGeminiModelListQuery(request.query) : undefined;
  const upstream = upstreamChoice(read, undefined);
  const connections = await cachedConnections(services);
  const listed = callableModels(
    knownModels(connections),
    connections,
    await callerScope(services, principal),
    upstream,
  );
  if (anthropicQuery) {
    return anthropicModelList(pageOfModels(anthropicQuery.active ? listed : [], anthropicQuery));
  }
  if (geminiQuery)
    return geminiModelList(pageOfModels(listed, { limit: geminiQuery.pageSize, afterId: geminiQuery.afterId }));
  return openaiModelList(listed);
}

/** `/v1/models/<id>` or `/v1beta/models/<id>`: the id holds a slash, raw or as `%2F`. */
function requestedModelId(route: RouteMatch): string {
  let id: string;
  try {
    id = decodeURIComponent(route.innerPath.slice(route.route.path.length));
  } catch {
    throw badRequest('invalid_model_path', 'The model in the path is not valid percent-encoding.');
  }
  // Google names a model `models/<id>`; its SDK sends a name from the list back as it got it.
  if (route.route.wire === 'gemini-models' && id.startsWith('models/')) id = id.slice('models/'.length);
  if (id.length === 0) throw badRequest('invalid_model_path', 'The path names no model.');
  return id;
}

async function readModel(read: ModelRead): Promise<unknown> {
  const { services, route, principal, shape } = read;
  const connections = await cachedConnections(services);
  const resolved = resolveModel(requestedModelId(route), knownModels(connections), services.config.upstreamPrefixes);
  const upstream = upstreamChoice(read, resolved.modelUpstream);
  const availability = availabilityOf(resolved.model, connections, await callerScope(services, principal), upstream);
  if (!availability.callable) throw notFound('model_unavailable', availability.reason);
  switch (shape) {
    case 'gemini':
      return geminiModelEntry(availability.listed);
    case 'anthropic':
      return anthropicModelEntry(availability.listed);
    case 'openai':
      return openaiModelEntry(availability.listed);
    default: {
      const unknownShape: never = shape;
      throw new Error(`unknown model list shape ${String(unknownShape)}`);
    }
  }
}
