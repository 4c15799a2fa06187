import type { RouteDefinition } from '../../shared/http/route-table.ts';

/**
 * A path of a route as a client sends it: an exact route's own path; below a prefix or before a suffix, a model id
 * (`provider/model`, with its slash) where the route names one, or the first path of the admin and usage APIs.
 */
export function samplePath(route: RouteDefinition, model = 'google/gemini-test'): string {
  switch (route.match) {
    case 'exact':
      return route.path;
    case 'prefix':
      if (route.wire === 'admin') return `${route.path}v1/members`;
      if (route.wire === 'usage') return `${route.path}v1/summary`;
      return `${route.path}${model}`;
    case 'suffix':
      return `${route.path}models/${model}${route.suffixes?.[0] ?? ''}`;
    default: {
      const unknownMatch: never = route.match;
      throw new Error(`unknown route match ${String(unknownMatch)}`);
    }
  }
}
