import type { EffectivePolicy } from '../auth/effective-policy.ts';
import { allowsModel } from '../auth/effective-policy.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import type { InputModality } from '../wires/input-media.ts';
import type { ClientWire } from '../wires/wire-names.ts';
import { reachableWires, servingConnections } from './choose-connection.ts';
import { listedInputModalities } from './input-modalities.ts';
import type { KnownModel } from './known-models.ts';
import { listedModelLimits } from './model-limits.ts';

/** A model as every model list shows it, whatever its shape. */
export interface ListedModel {
  /** `provider/model`. */
  id: string;
  provider: string;
  displayName: string;
  /** The catalog's limits, or those the serving connections declare (shared/catalog/model-limits.ts). */
  contextWindow: number | null;
  maxOutput: number | null;
  /** The client wires that reach the model through the connections serving it now. */
  wires: ClientWire[];
  /** What it takes as input there (shared/catalog/input-modalities.ts); undefined where no connection states it. */
  inputModalities: InputModality[] | undefined;
}

/** What a caller may call: their member ∩ key policy, and for a holder key, the perk's rules. */
export interface CallerScope {
  policy: EffectivePolicy;
  /** For a holder key: whether the perk lets it call the model now (model covered, tier reached). */
  holderMayCall: ((model: KnownModel) => boolean) | undefined;
}

export type Availability = { callable: true; listed: ListedModel } | { callable: false; reason: string };

/**
 * Whether a caller can call a model now, on the upstream it chose (else the model's own, as routing picks it):
 * an enabled connection serves it there and some client wire reaches it through one, the policy allows it, and
 * for a holder key the perk does. The reason says which of these failed.
 */
export function availabilityOf(
  model: KnownModel,
  connections: readonly ConnectionItem[],
  scope: CallerScope,
  chosenUpstream: string | undefined,
): Availability {
  if (!allowsModel(scope.policy, model.provider, model.publicId)) {
    return { callable: false, reason: `This key may not use the model "${model.publicId}".` };
  }
  if (scope.holderMayCall && !scope.holderMayCall(model)) {
    return { callable: false, reason: `The holder perk does not cover "${model.publicId}" for this wallet now.` };
  }
  const serving = servingConnections(connections, model, chosenUpstream);
  const wires = reachableWires(serving.connections, model);
  if (wires.length === 0) {
    return {
      callable: false,
      reason: `No enabled connection serves "${model.publicId}" on upstream "${serving.upstream}".`,
    };
  }
  return {
    callable: true,
    listed: {
      id: model.publicId,
      provider: model.provider,
      displayName: model.catalog?.name ?? model.model,
      ...listedModelLimits(model, serving.connections),
      wires,
      inputModalities: listedInputModalities(model, serving.connections),
    },
  };
}

/** The models a caller can call now, sorted by id so that cursors over the list are stable. */
export function callableModels(
  models: readonly KnownModel[],
  connections: readonly ConnectionItem[],
  scope: CallerScope,
  chosenUpstream: string | undefined,
): ListedModel[] {
  const listed: ListedModel[] = [];
  for (const model of models) {
    const availability = availabilityOf(model, connections, scope, chosenUpstream);
    if (availability.callable) listed.push(availability.listed);
  }
  return listed.sort((first, second) => (first.id < second.id ? -1 : first.id > second.id ? 1 : 0));
}

export interface ModelPage {
  models: ListedModel[];
  /** More models follow in the direction paged (after the last, or before the first with `beforeId`). */
  hasMore: boolean;
}

/**
 * One page of a list sorted by id: the first `limit` models after `afterId` (or from the start), or the last `limit`
 * before `beforeId`. Cursors compare ids rather than look them up, so a cursor whose model has left the list since
 * still pages on from where it was.
 */
export function pageOfModels(
  sorted: readonly ListedModel[],
  page: { limit: number; afterId?: string | undefined; beforeId?: string | undefined },
): ModelPage {
  const { limit, afterId, beforeId } = page;
  if (beforeId !== undefined) {
    const before = sorted.filter((model) => model.id < beforeId);
    return { models: before.slice(Math.max(0, before.length - limit)), hasMore: before.length > limit };
  }
  const after = afterId === undefined ? [...sorted] : sorted.filter((model) => model.id > afterId);
  return { models: after.slice(0, limit), hasMore: after.length > limit };
}
