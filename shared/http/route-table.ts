import type { ClientWire } from '../wires/wire-names.ts';

/**
 * The one list of paths. The local server dispatches with it and the CDK stack derives its function URLs and
 * CloudFront behaviours from it, so a path cannot exist on one host and not on the other.
 */
export const functionIds = [
  'chat-completions',
  'responses',
  'messages',
  'count-tokens',
  'generate-content',
  'models',
  'admin',
  'usage',
] as const;
export type FunctionId = (typeof functionIds)[number];

/**
 * The function that answers every path no route serves, with the gateway's own 404 or 405: the distribution's
 * default behaviour on AWS, and what the local host hands such a path to, so both check and answer it alike.
 */
export const fallbackFunctionId: FunctionId = 'models';

export interface RouteDefinition {
  /** Stable name, used in logs and tests. */
  readonly id: string;
  readonly method: 'GET' | 'POST';
  /** The path without an upstream prefix. With `match: 'prefix'` it ends in `/` and covers everything below. */
  readonly path: string;
  readonly match: 'exact' | 'prefix';
  readonly functionId: FunctionId;
  readonly wire: ClientWire | 'admin' | 'usage';
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
    id: 'responses',
    method: 'POST',
    path: '/v1/responses',
    match: 'exact',
    functionId: 'responses',
    wire: 'openai-responses',
    upstreamPrefixable: true,
  },
  {
    id: 'messages',
    method: 'POST',
    path: '/v1/messages',
    match: 'exact',
    functionId: 'messages',
    wire: 'anthropic-messages',
    upstreamPrefixable: true,
  },
  {
    id: 'count-tokens',
    method: 'POST',
    path: '/v1/messages/count_tokens',
    match: 'exact',
    functionId: 'count-tokens',
    wire: 'anthropic-count-tokens',
    upstreamPrefixable: true,
  },
  {
    // `/v1beta/models/<provider/model>:generateContent` and `:streamGenerateContent`: the model id holds a `/`,
    // so the route is a prefix and the handler reads the model and the method from the rest of the path.
    id: 'generate-content',
    method: 'POST',
    path: '/v1beta/models/',
    match: 'prefix',
    functionId: 'generate-content',
    wire: 'gemini',
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
  {
    // The usage data API (summary, requests, export.csv, keys) under `/usage-api/v1/`; read-only.
    id: 'usage-api',
    method: 'GET',
    path: '/usage-api/',
    match: 'prefix',
    functionId: 'usage',
    wire: 'usage',
    upstreamPrefixable: false,
  },
];

/**
 * Paths served as static files, not by a function: S3 behind CloudFront on AWS (CloudFront pattern
 * `${path}*`, with `${path}` itself answered by `indexFile`), the local host from the same build. `build` names
 * the page build in infra/usage-page-build.ts whose output is the bucket's content under `path`.
 */
export interface StaticRouteDefinition {
  readonly id: string;
  readonly method: 'GET';
  /** The page's own path; its assets live below `${path}/`. */
  readonly path: string;
  readonly match: 'prefix';
  readonly origin: 'static-site';
  readonly build: 'usage-page';
  readonly indexFile: string;
}

export const staticRoutes: readonly StaticRouteDefinition[] = [
  {
    id: 'usage-page',
    method: 'GET',
    path: '/app/usage',
    match: 'prefix',
    origin: 'static-site',
    build: 'usage-page',
    indexFile: 'index.html',
  },
];

/** The static route serving a path (the page itself or one of its assets), if any. */
export function matchStaticRoute(method: string, path: string): StaticRouteDefinition | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  return staticRoutes.find((route) => path === route.path || path.startsWith(`${route.path}/`));
}

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
