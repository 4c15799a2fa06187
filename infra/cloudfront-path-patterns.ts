import { type FunctionId, fallbackFunctionId, type RouteDefinition, routeTable } from '../shared/http/route-table.ts';

/** A route's path as CloudFront patterns: `*` stands for anything, slashes included. */
function patternsOf(route: RouteDefinition): string[] {
  switch (route.match) {
    case 'exact':
      return [route.path];
    case 'prefix':
      return [`${route.path}*`];
    case 'suffix':
      return (route.suffixes ?? []).map((suffix) => `${route.path}*${suffix}`);
    default: {
      const unknownMatch: never = route.match;
      throw new Error(`unknown route match ${String(unknownMatch)}`);
    }
  }
}

/**
 * CloudFront path patterns that reach a function, derived from the route table so a distribution cannot list a
 * path the functions do not serve. A route reachable under an upstream prefix gets one `/*` pattern rather than
 * one per prefix: a distribution allows 25 behaviours and production has 17 prefixes. Those `/*` patterns are the
 * least specific, so a distribution lists them after every other function's patterns.
 *
 * The fallback function's routes take no pattern: the default behaviour already sends it every path no pattern
 * claims, so they cost none of the 25 (the distribution test checks that no other pattern claims one of them).
 */
export function cloudFrontPathPatterns(functionId: FunctionId): string[] {
  if (functionId === fallbackFunctionId) return [];
  const patterns = new Set<string>();
  for (const route of routeTable) {
    if (route.functionId !== functionId) continue;
    for (const pattern of patternsOf(route)) {
      patterns.add(pattern);
      if (route.upstreamPrefixable) patterns.add(`/*${pattern}`);
    }
  }
  return [...patterns];
}
