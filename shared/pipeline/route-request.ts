import { holderDailyRequestLimit } from '../accounting/holder-tiers.ts';
import { authenticate } from '../auth/authenticate.ts';
import { authorizeModel, type EffectivePolicy } from '../auth/effective-policy.ts';
import type { Principal } from '../auth/principal.ts';
import { ConnectionRotation, chosenUpstream } from '../catalog/choose-connection.ts';
import { type KnownModel, knownModels } from '../catalog/known-models.ts';
import { resolveModel } from '../catalog/resolve-model.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { GatewayRequest } from '../http/gateway-request.ts';
import { checkRequestEnvelope, readJsonObject } from '../http/read-request.ts';
import type { RouteMatch } from '../http/route-table.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import type { ClientRequestReader, RequestAddress, WireRequest } from '../wires/client-wire-format.ts';
import type { ClientWire, UpstreamWire } from '../wires/wire-names.ts';

export interface RoutedRequest {
  model: KnownModel;
  connection: ConnectionItem;
  upstream: string;
  policy: EffectivePolicy;
  /** The holder daily request limit, for a holder key. */
  holderDailyRequests: number | undefined;
}

export async function cachedConnections(services: GatewayServices): Promise<ConnectionItem[]> {
  return (await services.caches.connections.getOrLoad('all', () => services.store.connections.list())) ?? [];
}

/**
 * The route and authorize stages (spec §4.3, §5 rule 5): resolve the model, settle which upstream was chosen,
 * check the member ∩ key policy against the resolved provider and model, and take the next connection.
 */
export async function routeRequest(
  services: GatewayServices,
  input: {
    principal: Principal;
    requestedModel: string;
    wire: ClientWire;
    pathUpstream: string | undefined;
    headerUpstream: string | undefined;
    rotation: ConnectionRotation;
    /** A token count that answers for every model, natively where a connection of this wire serves it. */
    countingWire?: UpstreamWire | undefined;
  },
): Promise<RoutedRequest> {
  const connections = await cachedConnections(services);
  const prefixes = services.config.upstreamPrefixes;
  const resolved = resolveModel(input.requestedModel, knownModels(connections), prefixes);
  const upstream = chosenUpstream(
    { modelUpstream: resolved.modelUpstream, pathUpstream: input.pathUpstream, headerUpstream: input.headerUpstream },
    prefixes,
  );
  const policy = authorizeModel(input.principal, resolved.model.provider, resolved.model.publicId);
  // The holder perk is part of authorization: its 403 comes before any question of connections.
  const holderDailyRequests = input.principal.holder
    ? holderDailyRequestLimit(
        resolved.model.catalog,
        await services.holdings.holdingsFor(input.principal.member),
        services.now(),
      )
    : undefined;
  const connection = input.countingWire
    ? input.rotation.chooseForCount({
        connections,
        model: resolved.model,
        countingWire: input.countingWire,
        upstream,
      })
    : input.rotation.choose({ connections, model: resolved.model, wire: input.wire, upstream });
  return { model: resolved.model, connection, upstream: connection.upstream, policy, holderDailyRequests };
}

/** One rotation per process, shared by every wire, so successive requests for a model rotate whatever their wire. */
const rotation = new ConnectionRotation();

export interface ReadAndRouted<Request extends WireRequest> {
  principal: Principal;
  /** The body as the client wire's schema read it: what every later stage reads. */
  clientRequest: Request;
  address: RequestAddress;
  routed: RoutedRequest;
}

/**
 * The stages every request that names a model goes through before anything is reserved: read (envelope and
 * body limits), authenticate, parse the body with the client wire's schema, then route and authorize.
 * `admittedAfter`: an admission write follows, which may rely on a cached principal (see authenticate).
 */
export async function readAndRoute<Request extends WireRequest>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  reader: ClientRequestReader<Request>,
  options: { admittedAfter: boolean; countingWire?: UpstreamWire },
): Promise<ReadAndRouted<Request>> {
  checkRequestEnvelope(request, services.config.bodyLimitBytes);
  const principal = await authenticate(services, request.headers, options);
  const address = { innerPath: route.innerPath, query: request.query };
  const clientRequest = reader.parseRequest(readJsonObject(request), address);
  const routed = await routeRequest(services, {
    principal,
    requestedModel: reader.modelOf(clientRequest, address),
    wire: reader.wire,
    pathUpstream: route.pathUpstream,
    headerUpstream: request.headers['x-gateway-upstream'],
    rotation,
    countingWire: options.countingWire,
  });
  return { principal, clientRequest, address, routed };
}
