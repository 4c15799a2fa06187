import type { ClientWire } from './wire.ts';

/**
 * The one list of paths. The local server dispatches with it and the CDK stack derives its function URLs and
 * CloudFront behaviours from it, so a path cannot exist on one host and not on the other.
 */
export const functionIds = ['chat-completions', 'models', 'admin'] as const;
export type FunctionId = (typeof functionIds)[number];

export interface RouteDefinition {
  /** Stable name, used in logs and tests. */
  readonly id: string;
  readonly method: 'GET' | 'POST';
  /** The path without an upstream prefix. With `match: 'prefix'` it ends in `/` and covers everything below. */
  readonly path: string;
  readonly match: 'exact' | 'prefix';
  readonly functionId: FunctionId;
  readonly wire: ClientWire | 'admin';
  /** Whether `/<upstream prefix>/...` also reaches this route (spec §4.3 rule 8). */
  readonly upstreamPrefixable: boolean;
}

export const routeTable: readonly RouteDefinition[] = [
  {
    id: 'chat-completions',
    method: 'POST',
    path: '/v1/chat/completions',
    match: 'exact',
    functionId: 'chat-completions',
    wire: 'openai-chat',
    upstreamPrefixable: true,
  },
  {
    id: 'models',
    method: 'GET',
    path: '/v1/models',
    match: 'exact',
    functionId: 'models',
    wire: 'models',
    upstreamPrefixable: true,
  },
  {
    id: 'admin',
    method: 'POST',
    path: '/admin/',
    match: 'prefix',
    functionId: 'admin',
    wire: 'admin',
    upstreamPrefixable: false,
  },
  {
    id: 'admin-read',
    method: 'GET',
    path: '/admin/',
    match: 'prefix',
    functionId: 'admin',
    wire: 'admin',
    upstreamPrefixable: false,
  },
];

export interface RouteMatch {
  route: RouteDefinition;
  /** The upstream prefix named in the path, if any. */
  pathUpstream: string | undefined;
  /** The path with the upstream prefix removed. */
  innerPath: string;
}

/** Finds the route for a path; `undefined` when the method or path is unknown. */
export function matchRoute(method: string, path: string, upstreamPrefixes: readonly string[]): RouteMatch | undefined {
  const direct = findRoute(method, path);
  if (direct) return { route: direct, pathUpstream: undefined, innerPath: path };
  const [, first, ...rest] = path.split('/');
  if (first === undefined || !upstreamPrefixes.includes(first)) return undefined;
  const innerPath = `/${rest.join('/')}`;
  const prefixed = findRoute(method, innerPath);
  if (!prefixed?.upstreamPrefixable) return undefined;
  return { route: prefixed, pathUpstream: first, innerPath };
}

function findRoute(method: string, path: string): RouteDefinition | undefined {
  return routeTable.find(
    (route) => route.method === method && (route.match === 'exact' ? route.path === path : path.startsWith(route.path)),
  );
}

/** Routes that answer a path regardless of method, to tell 405 from 404. */
export function routesForPath(path: string): RouteDefinition[] {
  return routeTable.filter((route) => (route.match === 'exact' ? route.path === path : path.startsWith(route.path)));
}
