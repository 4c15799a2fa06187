import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { GatewayServices } from '../shared/config/gateway-services.ts';
import { GatewayError, toGatewayError } from '../shared/http/gateway-error.ts';
import { fromFunctionUrlEvent, type GatewayRequest, type GatewayResponse } from '../shared/http/gateway-request.ts';
import { checkOrigin, originSecretHeader } from '../shared/http/origin-check.ts';
import { checkRequestEnvelope } from '../shared/http/read-request.ts';
import { renderError } from '../shared/http/render-error.ts';
import { matchRoute, type RouteMatch, routesForPath } from '../shared/http/route-table.ts';
import { errorEnvelopeFor } from '../shared/http/wire.ts';
import { recordResponse } from '../shared/observability/gateway-telemetry.ts';
import { type OpenStore, servicesFromEnvironment } from './gateway-runtime.ts';

/** What the local host adds to the invocation context; absent on Lambda. */
export interface HostContext extends Context {
  gatewayServices?: GatewayServices;
  /** Aborted when the client disconnects before the response starts. */
  clientSignal?: AbortSignal;
}

export type RouteHandler = (
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
) => Promise<GatewayResponse>;

/**
 * A function-URL entry in RESPONSE_STREAM mode: a middy chain and one call into shared/. middy pipes the body
 * to the client with backpressure; its `requestEnd` hook then waits for settlement, so accounting finishes after
 * the client's response has ended but before the invocation returns.
 */
export function streamingEntry(handle: RouteHandler, openStore: OpenStore) {
  const pendingSettlements = new WeakMap<object, Promise<void>>();
  return middy<APIGatewayProxyEventV2, unknown, Error, HostContext>({
    streamifyResponse: true,
    requestEnd: async (request) => {
      await pendingSettlements.get(request.context);
    },
  }).handler(async (event, context) => {
    const services = context.gatewayServices ?? servicesFromEnvironment(openStore);
    const request = fromFunctionUrlEvent(event, context.clientSignal);
    const route = matchRoute(request.method, request.path, services.config.upstreamPrefixes);
    const response: GatewayResponse = await admitThroughFrontDoor(services, request).then(
      () => (route ? handle(services, request, route) : unknownRoute(request, services.config.bodyLimitBytes)),
      (error: unknown) => renderError(toGatewayError(error), route ? errorEnvelopeFor(route.route.wire) : 'openai'),
    );
    if (response.afterResponse) pendingSettlements.set(context, response.afterResponse);
    recordResponse(services.config, response.statusCode);
    return { statusCode: response.statusCode, headers: response.headers, body: response.body };
  });
}

/**
 * The first thing every invocation does, before any store access: a request that did not come through CloudFront
 * is refused (shared/http/origin-check.ts). The header is then dropped, so nothing later can log or forward it.
 */
async function admitThroughFrontDoor(services: GatewayServices, request: GatewayRequest): Promise<void> {
  await checkOrigin(services.config.originSecretIds, services.secrets, request.headers);
  delete request.headers[originSecretHeader];
}

/**
 * A path no route serves: 405 when another method would have matched, else 404 (spec §7). The read stage's
 * refusals come first, so a WebSocket handshake (a GET) or a key in the URL is refused as such on any path.
 */
export function unknownRoute(request: GatewayRequest, bodyLimitBytes: number): GatewayResponse {
  try {
    checkRequestEnvelope(request, bodyLimitBytes);
  } catch (error) {
    return renderError(toGatewayError(error), 'openai');
  }
  const methods = routesForPath(request.path).map((route) => route.method);
  const error =
    methods.length > 0
      ? new GatewayError(405, 'method_not_allowed', `Use ${methods.join(' or ')} for ${request.path}.`, {
          headers: { allow: methods.join(', ') },
        })
      : new GatewayError(404, 'unknown_route', `No route at ${request.method} ${request.path}.`);
  return renderError(error, 'openai');
}
