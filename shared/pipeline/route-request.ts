import { holderDailyRequestLimit } from '../accounting/holder-tiers.ts';
import { authorizeModel, type EffectivePolicy } from '../auth/effective-policy.ts';
import type { Principal } from '../auth/principal.ts';
import { type ConnectionRotation, chosenUpstream } from '../catalog/choose-connection.ts';
import { type KnownModel, knownModels } from '../catalog/known-models.ts';
import { resolveModel } from '../catalog/resolve-model.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { ClientWire } from '../http/wire.ts';
import { listConnections } from '../store/connection-store.ts';
import type { ConnectionItem } from '../store/control-items.ts';

export interface RoutedRequest {
  model: KnownModel;
  connection: ConnectionItem;
  upstream: string;
  policy: EffectivePolicy;
  /** The holder daily request limit, for a holder key. */
  holderDailyRequests: number | undefined;
}

export async function cachedConnections(services: GatewayServices): Promise<ConnectionItem[]> {
  return (await services.caches.connections.getOrLoad('all', () => listConnections(services.control))) ?? [];
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
  const connection = input.rotation.choose({ connections, model: resolved.model, wire: input.wire, upstream });
  return { model: resolved.model, connection, upstream: connection.upstream, policy, holderDailyRequests };
}
