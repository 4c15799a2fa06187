import type { ConnectionItem } from '../store/control-items.ts';
import type { InputModality } from '../wires/input-media.ts';
import { declaredModelName, type KnownModel } from './known-models.ts';

/** A model's limits on one connection, in tokens; `null` where nothing states one. */
export interface ModelLimits {
  contextWindow: number | null;
  maxOutput: number | null;
  /**
   * Whether `maxOutput` is what the connection declares. Clients cannot know a declared limit (their SDK does not
   * know the model, and sends its own default, such as the AI SDK's 128,000), so a request above it is capped to
   * it; above the catalog's, which the model lists publish, it is refused (shared/accounting/output-allowance.ts).
   */
  maxOutputDeclared: boolean;
  /** What the model takes as input: the connection's declaration, else the catalog's; `null` where none states it. */
  inputModalities: InputModality[] | null;
}

/**
 * The limits a request for `model` meets on `connection`: what the connection declares for it, else the catalog's.
 * A connection stored before declarations existed declares none, and keeps the catalog's (or no) limits.
 */
export function modelLimitsOn(model: KnownModel, connection: ConnectionItem): ModelLimits {
  const declared = connection.modelLimits.find(
    (entry) => connection.provider === model.provider && declaredModelName(connection, entry.id) === model.model,
  );
  return {
    contextWindow: declared?.contextWindow ?? model.catalog?.contextWindow ?? null,
    maxOutput: declared?.maxOutput ?? model.catalog?.maxOutput ?? null,
    maxOutputDeclared: declared?.maxOutput !== undefined && declared.maxOutput !== null,
    inputModalities: declared?.inputModalities ?? model.catalog?.inputModalities ?? null,
  };
}

/**
 * The limits a model list shows for a model served by several connections: the smallest stated on any of them,
 * since a request may go to any of them; `null` when none states one.
 */
export function listedModelLimits(
  model: KnownModel,
  serving: readonly ConnectionItem[],
): Pick<ModelLimits, 'contextWindow' | 'maxOutput'> {
  const limits = serving.map((connection) => modelLimitsOn(model, connection));
  const smallest = (values: (number | null)[]) => {
    const stated = values.filter((value): value is number => value !== null);
    return stated.length === 0 ? null : Math.min(...stated);
  };
  return {
    contextWindow: smallest(limits.map((entry) => entry.contextWindow)),
    maxOutput: smallest(limits.map((entry) => entry.maxOutput)),
  };
}
