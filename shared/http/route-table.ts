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
  /**
   * The path without an upstream prefix. With `match: 'prefix'` it ends in `/` and covers everything below; with
   * `match: 'suffix'` it covers everything below that ends in one of `suffixes` (generate-content names its
   * method after the model, `/v1beta/models/<model>:countTokens`, and the model id may hold slashes).
   */
  readonly path: string;
  readonly match: 'exact' | 'prefix' | 'suffix';
  readonly suffixes?: readonly string[];
  readonly functionId: FunctionId;
  readonly wire: ClientWire | 'admin' | 'usage';
  /** Whether `/<upstream prefix>/...` also reaches this route (spec §4.3 rule 8). */
  readonly upstreamPrefixable: boolean;
}

/**
 * Google's API versions, each serving the same methods: `@google/genai` calls `v1beta` unless told
 * `apiVersion: 'v1'`, the stable API. The gateway answers both alike (shared/wires/gemini/generate-content-path.ts
 * reads the model and the method after either).
 */
export const googleApiVersions = ['v1beta', 'v1'] as const;
export type GoogleApiVersion = (typeof googleApiVersions)[number];

/**
 * Google's methods under one version: `/<version>/models/<provider/model>:generateContent` and
 * `:streamGenerateContent`, the form `@ai-sdk/google` sends for an id that holds a slash,
 * `/<version>/<provider>/<model>:generateContent`, and the token count in the same two forms (answered by the
 * function that counts for messages too). The handler reads the model and the method from the rest of the path.
 * Under `/v1/` these come before OpenAI's `/v1/models/` read, so a path ending in a method is Google's whatever
 * its HTTP method, and `GET /v1/models/<id>` stays OpenAI's.
 */
function googleMethodRoutesOf(version: GoogleApiVersion): RouteDefinition[] {
  const path = `/${version}/`;
  return [
    {
      id: `generate-content-${version}`,
      method: 'POST',
      path,
      match: 'suffix',
      suffixes: [':generateContent', ':streamGenerateContent'],
      functionId: 'generate-content',
      wire: 'gemini',
      upstreamPrefixable: true,
    },
    {
      id: `gemini-count-tokens-${version}`,
      method: 'POST',
      path,
      match: 'suffix',
      suffixes: [':countTokens'],
      functionId: 'count-tokens',
      wire: 'gemini-count-tokens',
      upstreamPrefixable: true,
    },
  ];
}

const googleMethodRoutes = googleApiVersions.flatMap(googleMethodRoutesOf);

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
  ...googleMethodRoutes,
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
    // `models.retrieve('provider/model')`: the id holds a slash, sent raw or as `%2F`.
    id: 'model',
    method: 'GET',
    path: '/v1/models/',
    match: 'prefix',
    functionId: 'models',
    wire: 'models',
    upstreamPrefixable: true,
  },
  {
    id: 'gemini-models',
    method: 'GET',
    path: '/v1beta/models',
    match: 'exact',
    functionId: 'models',
    wire: 'gemini-models',
    upstreamPrefixable: true,
  },
  {
    // After the generate-content routes: a path ending in a method belongs to them, whatever its HTTP method.
    id: 'gemini-model',
    method: 'GET',
    path: '/v1beta/models/',
    match: 'prefix',
    functionId: 'models',
    wire: 'gemini-models',
    upstreamPrefixable: true,
  },
  {
    // The holder policy record (spec §2.3), readable with any valid key.
    id: 'holder-policy',
    method: 'GET',
    path: '/v1/holder-policy',
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
    // Sign-in with the team's OpenID provider (shared/sign-in/): login, callback and session are GETs (the
    // browser navigates to them), logout and the CLI's code exchange POSTs.
    id: 'sign-in',
    method: 'GET',
    path: '/app/auth/',
    match: 'prefix',
    functionId: 'admin',
    wire: 'admin',
    upstreamPrefixable: false,
  },
  {
    id: 'sign-in-post',
    method: 'POST',
    path: '/app/auth/',
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
  {
    // The admin console: the same build as the usage view, answered with its own page.
    id: 'admin-console',
    method: 'GET',
    path: '/app/admin',
    match: 'prefix',
    origin: 'static-site',
    build: 'usage-page',
    indexFile: 'admin.html',
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

/** Whether a route's path pattern covers a path (whatever the method). */
export function routeCoversPath(route: RouteDefinition, path: string): boolean {
  switch (route.match) {
    case 'exact':
      return path === route.path;
    case 'prefix':
      return path.startsWith(route.path);
    case 'suffix':
      return (
        path.startsWith(route.path) &&
        (route.suffixes ?? []).some(
          (suffix) => path.length > route.path.length + suffix.length && path.endsWith(suffix),
        )
      );
    default: {
      const unknownMatch: never = route.match;
      throw new Error(`unknown route match ${String(unknownMatch)}`);
    }
  }
}

/**
 * The routes that own a path: those sharing the pattern of the first route, in table order, that covers it.
 * CloudFront does the same, taking the first path pattern that matches whatever the method, so a path belongs to
 * one function on both hosts; the method then picks among the routes of that pattern.
 */
function routesOwning(path: string): RouteDefinition[] {
  const owner = routeTable.find((route) => routeCoversPath(route, path));
  if (!owner) return [];
  return routeTable.filter(
    (route) =>
      route.path === owner.path && route.match === owner.match && route.suffixes?.join() === owner.suffixes?.join(),
  );
}

/** The path with a leading upstream prefix removed, when the rest is a path some route covers. */
function withoutUpstreamPrefix(
  path: string,
  upstreamPrefixes: readonly string[],
): { pathUpstream: string; innerPath: string } | undefined {
  const [, first, ...rest] = path.split('/');
  if (first === undefined || !upstreamPrefixes.includes(first)) return undefined;
  return { pathUpstream: first, innerPath: `/${rest.join('/')}` };
}

/** Finds the route for a path; `undefined` when the method or path is unknown. */
export function matchRoute(method: string, path: string, upstreamPrefixes: readonly string[]): RouteMatch | undefined {
  const direct = routesOwning(path);
  if (direct.length > 0) {
    const route = direct.find((candidate) => candidate.method === method);
    return route ? { route, pathUpstream: undefined, innerPath: path } : undefined;
  }
  const prefixed = withoutUpstreamPrefix(path, upstreamPrefixes);
  if (!prefixed) return undefined;
  const route = routesOwning(prefixed.innerPath).find(
    (candidate) => candidate.method === method && candidate.upstreamPrefixable,
  );
  return route ? { route, ...prefixed } : undefined;
}

/** Routes that answer a path with some method, to tell 405 from 404, under an upstream prefix too. */
export function routesForPath(path: string, upstreamPrefixes: readonly string[]): RouteDefinition[] {
  const direct = routesOwning(path);
  if (direct.length > 0) return direct;
  const prefixed = withoutUpstreamPrefix(path, upstreamPrefixes);
  if (!prefixed) return [];
  return routesOwning(prefixed.innerPath).filter((route) => route.upstreamPrefixable);
}
