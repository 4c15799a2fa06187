import type { ConnectionItem } from '../store/control-items.ts';
import { clientWiresReaching } from '../translation/translation-paths.ts';
import { upstreamWireOfModel } from '../wires/model-wire.ts';
import type { ClientWire } from '../wires/wire-names.ts';
import { type CatalogModel, catalogModels, holderPolicyModelId } from './catalog-data.ts';

/** A model a request can name: a catalog entry, or a model a connection declares. */
export interface KnownModel {
  publicId: string;
  provider: string;
  model: string;
  upstreamModel: string;
  wires: ClientWire[];
  upstreamMarker: string | null;
  /** Other ids a request may name it by, such as the holder policy's model id. */
  aliases: string[];
  catalog: CatalogModel | undefined;
}

/** A model a connection declares, as the upstream names it: `acme/acme-1` on an `acme` connection is `acme-1`. */
export function declaredModelName(connection: Pick<ConnectionItem, 'provider'>, declared: string): string {
  return declared.startsWith(`${connection.provider}/`) ? declared.slice(connection.provider.length + 1) : declared;
}

/** The model names a connection serves: its declared list, or else the catalog models of its provider and wire. */
export function modelsOfConnection(connection: ConnectionItem): string[] {
  if (connection.models.length > 0) return connection.models.map((model) => declaredModelName(connection, model));
  return catalogModels
    .filter((entry) => entry.provider === connection.provider && entry.upstreamWire === connection.wire)
    .map((entry) => entry.model);
}

/**
 * The known models of one list of connections, kept as long as the list: the connection cache hands every request
 * the same list until it reloads, so the models are worked out once per load, not once per request.
 */
const knownByConnections = new WeakMap<readonly ConnectionItem[], readonly KnownModel[]>();

export function knownModels(connections: readonly ConnectionItem[]): readonly KnownModel[] {
  let known = knownByConnections.get(connections);
  if (!known) {
    known = Object.freeze(modelsOf(connections));
    knownByConnections.set(connections, known);
  }
  return known;
}

function modelsOf(connections: readonly ConnectionItem[]): KnownModel[] {
  const byId = new Map<string, KnownModel>();
  for (const entry of catalogModels) {
    const holderId = holderPolicyModelId(entry);
    byId.set(entry.publicId, {
      publicId: entry.publicId,
      provider: entry.provider,
      model: entry.model,
      upstreamModel: entry.upstreamModel,
      wires: [...entry.wires],
      upstreamMarker: entry.upstreamMarker,
      aliases: holderId === undefined ? [] : [holderId],
      catalog: entry,
    });
  }
  for (const connection of connections) {
    for (const model of modelsOfConnection(connection)) {
      const publicId = `${connection.provider}/${model}`;
      const known = byId.get(publicId);
      if (known?.catalog) continue;
      // A model a connection declares is offered on every wire that reaches its own (on Bedrock, per model), translated
      // or not.
      const wires = new Set([
        ...(known?.wires ?? []),
        ...clientWiresReaching(upstreamWireOfModel(connection.wire, model)),
      ]);
      byId.set(publicId, {
        publicId,
        provider: connection.provider,
        model,
        upstreamModel: model,
        wires: [...wires],
        upstreamMarker: null,
        aliases: [],
        catalog: undefined,
      });
    }
  }
  return [...byId.values()];
}
