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
 * The patterns of a route, and of the route under any upstream prefix where it is reachable so. A suffix route
 * reachable under a prefix takes one pattern per suffix, `/*:generateContent`: it covers the path under every
 * Google API version and every prefix at once (Google's methods under `/v1beta/` and `/v1/`, bare and prefixed,
 * would take eight behaviours otherwise, and a distribution allows 25). It claims nothing of another route: no
 * other route's path ends in a Google method, and a path ending so that no route serves reaches the method's
 * function, which answers it with the same 404 or 405 as the default behaviour's function would.
 */
function reachablePatternsOf(route: RouteDefinition): string[] {
  if (!route.upstreamPrefixable) return patternsOf(route);
  if (route.match === 'suffix') return (route.suffixes ?? []).map((suffix) => `/*${suffix}`);
  return patternsOf(route).flatMap((pattern) => [pattern, `/*${pattern}`]);
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
    for (const pattern of reachablePatternsOf(route)) patterns.add(pattern);
  }
  return [...patterns];
}
