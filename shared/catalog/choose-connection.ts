import { badRequest, notFound } from '../http/gateway-error.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import { translationPath } from '../translation/translation-paths.ts';
import { upstreamWireOfModel } from '../wires/model-wire.ts';
import { type ClientWire, clientWiresServedBy, formatOfWire, type UpstreamWire } from '../wires/wire-names.ts';
import { type KnownModel, modelsOfConnection } from './known-models.ts';

export interface UpstreamChoices {
  modelUpstream: string | undefined;
  pathUpstream: string | undefined;
  headerUpstream: string | undefined;
}

/**
 * The upstream a request chose (spec §4.3 rule 8): by model prefix, path prefix or `X-Gateway-Upstream`.
 * Choices that disagree are refused rather than ranked.
 */
export function chosenUpstream(choices: UpstreamChoices, upstreamPrefixes: readonly string[]): string | undefined {
  if (choices.headerUpstream !== undefined && !upstreamPrefixes.includes(choices.headerUpstream)) {
    throw badRequest('invalid_upstream', `"${choices.headerUpstream}" is not an upstream prefix of this gateway.`);
  }
  const named = new Set(
    [choices.modelUpstream, choices.pathUpstream, choices.headerUpstream].filter((value) => value !== undefined),
  );
  if (named.size > 1) {
    throw badRequest('conflicting_upstream', `The request names different upstreams: ${[...named].join(', ')}.`);
  }
  return [...named][0];
}

export function connectionServesModel(connection: ConnectionItem, model: KnownModel): boolean {
  return connection.provider === model.provider && modelsOfConnection(connection).includes(model.model);
}

/** The enabled connections serving a model on one upstream: the one chosen, or the model's implicit one. */
export interface ServingConnections {
  upstream: string;
  connections: ConnectionItem[];
}

/**
 * Where a model is served for a request: on the upstream it chose, else on the model's marked upstream when a
 * connection serves it there, else on `lb` (spec §4.3 rule 8). Disabled connections are never among them.
 */
export function servingConnections(
  connections: readonly ConnectionItem[],
  model: KnownModel,
  chosenUpstream: string | undefined,
): ServingConnections {
  const serving = connections.filter((connection) => connection.enabled && connectionServesModel(connection, model));
  const upstream = chosenUpstream ?? implicitUpstream(serving, model);
  return { upstream, connections: serving.filter((connection) => connection.upstream === upstream) };
}

/**
 * The connections that can answer a client wire for a model: the same wire in and out where a connection speaks
 * it; otherwise those a translation path reaches (translation-paths.ts). The model's own `wires` bound it first:
 * the catalog's list for a catalog model, every wire that reaches its connections for a declared one.
 */
export function connectionsForWire(
  serving: readonly ConnectionItem[],
  model: KnownModel,
  wire: ClientWire,
): ConnectionItem[] {
  if (!model.wires.includes(wire)) return [];
  const wireOf = (connection: ConnectionItem) => upstreamWireOfModel(connection.wire, model.upstreamModel);
  const native = serving.filter((connection) => clientWiresServedBy(wireOf(connection)).includes(wire));
  if (native.length > 0) return native;
  return serving.filter((connection) => translationPath(wire, wireOf(connection)) !== undefined);
}

/** The client wires a model can be called with through these connections: what a model list says it offers. */
export function reachableWires(serving: readonly ConnectionItem[], model: KnownModel): ClientWire[] {
  return model.wires.filter((wire) => connectionsForWire(serving, model, wire).length > 0);
}

/**
 * Round-robin over the enabled connections that can serve a request. The counter lives in this process: on one
 * machine it rotates exactly; on Lambda each warm instance rotates on its own, starting at a random place.
 */
export class ConnectionRotation {
  readonly #counters = new Map<string, number>();

  choose(input: {
    connections: readonly ConnectionItem[];
    model: KnownModel;
    wire: ClientWire;
    upstream: string | undefined;
  }): ConnectionItem {
    const { model, wire } = input;
    if (!model.wires.includes(wire)) {
      throw badRequest('unsupported_wire', `The model "${model.publicId}" cannot be called with this request format.`);
    }
    const { upstream, connections } = this.#servingOrRefuse(input.connections, model, input.upstream);
    const candidates = connectionsForWire(connections, model, wire);
    if (candidates.length === 0) {
      throw badRequest('unsupported_wire', `No connection for "${model.publicId}" speaks this request format.`);
    }
    return this.#next(`${upstream}|${model.publicId}|${wire}`, candidates);
  }

  /**
   * A token count that answers for every model: a connection of the counting wire where one serves the model (it
   * counts), else any connection that serves it (the gateway estimates); rotated like inference.
   */
  chooseForCount(input: {
    connections: readonly ConnectionItem[];
    model: KnownModel;
    countingWire: UpstreamWire;
    upstream: string | undefined;
  }): ConnectionItem {
    const { model } = input;
    const { upstream, connections } = this.#servingOrRefuse(input.connections, model, input.upstream);
    const counting = connections.filter(
      (connection) => formatOfWire(upstreamWireOfModel(connection.wire, model.upstreamModel)) === input.countingWire,
    );
    return this.#next(`${upstream}|${model.publicId}|count`, counting.length > 0 ? counting : connections);
  }

  #servingOrRefuse(
    all: readonly ConnectionItem[],
    model: KnownModel,
    chosenUpstream: string | undefined,
  ): ServingConnections {
    const serving = servingConnections(all, model, chosenUpstream);
    if (serving.connections.length === 0) {
      throw notFound(
        'no_connection',
        `No enabled connection serves "${model.publicId}" on upstream "${serving.upstream}".`,
      );
    }
    return serving;
  }

  #next(counterKey: string, candidates: readonly ConnectionItem[]): ConnectionItem {
    const counter = this.#counters.get(counterKey) ?? Math.floor(Math.random() * candidates.length);
    this.#counters.set(counterKey, counter + 1);
    return candidates[counter % candidates.length] as ConnectionItem;
  }
}

/** Without an explicit choice: the model's marked upstream where one serves it, else the default `lb`. */
function implicitUpstream(serving: readonly ConnectionItem[], model: KnownModel): string {
  const marker = model.upstreamMarker;
  if (marker !== null && serving.some((connection) => connection.upstream === marker)) return marker;
  return 'lb';
}
