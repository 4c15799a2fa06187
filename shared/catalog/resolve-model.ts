import { badRequest, notFound } from '../http/gateway-error.ts';
import type { KnownModel } from './known-models.ts';

export interface ResolvedModel {
  model: KnownModel;
  /** The upstream prefix named in the model id (`<prefix>/<model>`), if any. */
  modelUpstream: string | undefined;
}

/**
 * Resolves a requested model id (spec §4.3): an exact `provider/model` id or a model's alias first, then
 * `<upstream prefix>/<rest>`, then a bare name, which must name exactly one model across providers.
 */
export function resolveModel(
  requested: string,
  models: readonly KnownModel[],
  upstreamPrefixes: readonly string[],
): ResolvedModel {
  const exact = models.find((model) => model.publicId === requested || model.aliases.includes(requested));
  if (exact) return { model: exact, modelUpstream: undefined };

  const slash = requested.indexOf('/');
  if (slash > 0) {
    const prefix = requested.slice(0, slash);
    if (upstreamPrefixes.includes(prefix)) {
      const inner = resolveModel(requested.slice(slash + 1), models, []);
      return { model: inner.model, modelUpstream: prefix };
    }
    throw notFound('unknown_model', `The model "${requested}" is not known to this gateway.`);
  }

  const matches = models.filter((model) => model.model === requested);
  const first = matches[0];
  if (!first) throw notFound('unknown_model', `The model "${requested}" is not known to this gateway.`);
  if (matches.length > 1) {
    const candidates = matches.map((model) => model.publicId).join(', ');
    throw badRequest(
      'ambiguous_model',
      `The model "${requested}" exists on several providers; name one of: ${candidates}.`,
    );
  }
  return { model: first, modelUpstream: undefined };
}
