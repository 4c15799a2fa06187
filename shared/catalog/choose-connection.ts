import { badRequest, notFound } from '../http/gateway-error.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import { translationPath } from '../translation/translation-paths.ts';
import type { ClientWire } from '../wires/wire-names.ts';
import { clientWiresServedBy, type KnownModel, modelsOfConnection } from './known-models.ts';

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
    const serving = input.connections.filter(
      (connection) => connection.enabled && connectionServesModel(connection, model),
    );
    const upstream = input.upstream ?? implicitUpstream(serving, model);
    const onUpstream = serving.filter((connection) => connection.upstream === upstream);
    if (onUpstream.length === 0) {
      throw notFound('no_connection', `No enabled connection serves "${model.publicId}" on upstream "${upstream}".`);
    }
    // Same wire in and out where a connection speaks it; translation only where the model's route demands it,
    // which the catalog says: connection-declared models are never translated.
    const native = onUpstream.filter((connection) => clientWiresServedBy(connection.wire).includes(wire));
    const candidates =
      native.length > 0 || !model.catalog
        ? native
        : onUpstream.filter((connection) => translationPath(wire, connection.wire) !== undefined);
    if (candidates.length === 0) {
      throw badRequest('unsupported_wire', `No connection for "${model.publicId}" speaks this request format.`);
    }
    const counterKey = `${upstream}|${model.publicId}|${wire}`;
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
