import { badRequest } from '../http/gateway-error.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import {
  describeModality,
  type InputModality,
  type MediaModality,
  type MediaPart,
  mediaCarriedBy,
} from '../wires/input-media.ts';
import { upstreamWireOfModel } from '../wires/model-wire.ts';
import type { KnownModel } from './known-models.ts';
import { modelLimitsOn } from './model-limits.ts';

/**
 * Which media a model takes on a connection (spec §2.2, "Multimodal input"): what its catalog entry lists — or what
 * the connection declares for it — as far as the connection's wire has a form for it (K2.7's catalog entry lists
 * video, but its route speaks the messages format, which has none). A model whose connection states nothing (a model
 * only a connection knows, declared without modalities) takes what the client sends: the upstream decides, and
 * a translation refuses what its far wire cannot carry. `undefined` then.
 */
export function mediaTakenOn(model: KnownModel, connection: ConnectionItem): ReadonlySet<MediaModality> | undefined {
  const stated = modelLimitsOn(model, connection).inputModalities;
  if (stated === null) return undefined;
  const carried = mediaCarriedBy(upstreamWireOfModel(connection.wire, model.upstreamModel));
  return new Set(carried.filter((modality) => stated.includes(modality)));
}

/** The input modalities a model list shows for a model on these connections; `undefined` where none states them. */
export function listedInputModalities(
  model: KnownModel,
  serving: readonly ConnectionItem[],
): InputModality[] | undefined {
  const taken = serving.map((connection) => mediaTakenOn(model, connection));
  if (taken.every((media) => media === undefined)) return undefined;
  // A request may go to any of them: a kind is listed when every connection that states its media takes it.
  const stated = taken.filter((media): media is ReadonlySet<MediaModality> => media !== undefined);
  const common = [...(stated[0] ?? [])].filter((modality) => stated.every((media) => media.has(modality)));
  return ['text', ...common];
}

/**
 * Refuses (400 `unsupported_modality`, before anything is reserved) the first media part a model does not take on
 * its connection, naming where it is, what the model takes, and why where the catalog lists it but the route
 * cannot carry it.
 */
export function assertMediaTaken(model: KnownModel, connection: ConnectionItem, parts: readonly MediaPart[]): void {
  if (parts.length === 0) return;
  const taken = mediaTakenOn(model, connection);
  if (taken === undefined) return;
  const refused = parts.find((part) => !taken.has(part.modality));
  if (refused === undefined) return;
  const what = describeModality(refused.modality);
  const stated = modelLimitsOn(model, connection).inputModalities ?? [];
  const takes = ['text', ...taken].join(' and ').replace(/ and (?=.* and )/g, ', ');
  const reason = stated.includes(refused.modality)
    ? `it is listed with ${refused.modality} input, but its upstream speaks the ${upstreamWireOfModel(connection.wire, model.upstreamModel)} format, which has no ${refused.modality} part; it takes ${takes} input here`
    : `it takes ${takes} input`;
  throw badRequest(
    'unsupported_modality',
    `${refused.where} is ${what}, which ${model.publicId} does not take: ${reason}.`,
  );
}
