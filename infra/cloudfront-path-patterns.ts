import { type FunctionId, routeTable } from '../shared/http/route-table.ts';

/**
 * CloudFront path patterns that reach a function, derived from the route table so a distribution cannot list a
 * path the functions do not serve. A route reachable under an upstream prefix gets one `/*` pattern rather than
 * one per prefix: a distribution allows 25 behaviours and production has 17 prefixes. Those `/*` patterns are the
 * least specific, so a distribution lists them after every other function's patterns.
 */
export function cloudFrontPathPatterns(functionId: FunctionId): string[] {
  const patterns = new Set<string>();
  for (const route of routeTable) {
    if (route.functionId !== functionId) continue;
    const pattern = route.match === 'prefix' ? `${route.path}*` : route.path;
    patterns.add(pattern);
    if (route.upstreamPrefixable) patterns.add(`/*${pattern}`);
  }
  return [...patterns];
}
