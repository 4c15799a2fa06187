import { badRequest } from '../http/gateway-error.ts';
import type { DeclaredModelLimits } from '../store/control-items.ts';
import type { InputModality } from '../wires/input-media.ts';
import type { ModelDeclaration } from './admin-schemas.ts';

/**
 * A connection's model declarations as the store keeps them: the ids in order, and the limits (context window,
 * largest output, input modalities) of those that state any. The same id twice is kept once when it states nothing; stated twice, or stated once and also given
 * plain, it is refused, since one of the two would silently lose. A largest output above the context window
 * cannot be right either.
 */
export function storedModelDeclarations(declarations: readonly ModelDeclaration[]): {
  models: string[];
  modelLimits: DeclaredModelLimits[];
} {
  const models: string[] = [];
  const modelLimits: DeclaredModelLimits[] = [];
  const stated = new Set<string>();
  const seen = new Set<string>();
  for (const declaration of declarations) {
    const entry = typeof declaration === 'string' ? { id: declaration } : declaration;
    const { id } = entry;
    const limits = { contextWindow: entry.contextWindow ?? null, maxOutput: entry.maxOutput ?? null };
    // Text is always taken: a model that took none could answer nothing.
    const modalities = entry.inputModalities && [...new Set<InputModality>(['text', ...entry.inputModalities])];
    const states = limits.contextWindow !== null || limits.maxOutput !== null || modalities !== undefined;
    if (seen.has(id)) {
      if (states || stated.has(id)) {
        throw badRequest('invalid_request', `models: "${id}" is declared more than once with its limits.`);
      }
      continue;
    }
    seen.add(id);
    models.push(id);
    if (!states) continue;
    if (limits.contextWindow !== null && limits.maxOutput !== null && limits.maxOutput > limits.contextWindow) {
      throw badRequest(
        'invalid_request',
        `models: "${id}" declares a maxOutput of ${limits.maxOutput}, above its contextWindow of ${limits.contextWindow}.`,
      );
    }
    stated.add(id);
    modelLimits.push({ id, ...limits, ...(modalities ? { inputModalities: modalities } : {}) });
  }
  return { models, modelLimits };
}
