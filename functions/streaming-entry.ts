import type { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type Deadline, deadlineIn } from '../shared/clock/monotonic-deadline.ts';
import type { GatewayConfig } from '../shared/config/gateway-config.ts';
import type { GatewayServices } from '../shared/config/gateway-services.ts';
import { GatewayError, toGatewayError } from '../shared/http/gateway-error.ts';
import { fromFunctionUrlEvent, type GatewayRequest, type GatewayResponse } from '../shared/http/gateway-request.ts';
import { checkOrigin, originSecretHeader } from '../shared/http/origin-check.ts';
import { checkRequestEnvelope } from '../shared/http/read-request.ts';
import { renderError } from '../shared/http/render-error.ts';
import { matchRoute, type RouteMatch, routesForPath } from '../shared/http/route-table.ts';
import { recordResponse } from '../shared/observability/gateway-telemetry.ts';
import { googleInnerPath, parseGenerateContentPath } from '../shared/wires/gemini/generate-content-path.ts';
import { storedResponseRefusal } from '../shared/wires/openai-responses/openai-responses-stored.ts';
import { errorEnvelopeFor, errorEnvelopeOfRequest } from '../shared/wires/wire-names.ts';
import { type OpenStore, servicesFromEnvironment, telemetryReady } from './gateway-runtime.ts';
import { writeResponse } from './write-response.ts';

/** What an invocation's context carries beside Lambda's own. */
export interface HostContext extends Context {
  /** The local host's services; absent on Lambda, where they are built from the environment. */
  gatewayServices?: GatewayServices;
  /** Aborted when the response stream says the client is gone; set by the entry itself (`watchClient`). */
  clientSignal?: AbortSignal;
}

export type RouteHandler = (
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
) => Promise<GatewayResponse>;

/** The response stream as the runtime hands it over: a Writable (infra/local/lambda-stream-shim.ts models it). */
type ResponseStream = Writable;

/**
 * A function-URL entry in RESPONSE_STREAM mode: one call into shared/, then the answer written to the response
 * stream with backpressure (write-response.ts). Around it, the entry watches the response stream for the client
 * going away and waits for settlement before the invocation returns, whether the response ended or broke off:
 * Lambda may freeze the environment as soon as the handler returns, so settlement must be done by then.
 */
export function streamingEntry(handle: RouteHandler, openStore: OpenStore) {
  return awslambda.streamifyResponse(
    async (event: APIGatewayProxyEventV2, responseStream: ResponseStream, context: HostContext) => {
      const client = watchClient(responseStream);
      context.clientSignal = client.signal;
      let settlement: Promise<void> | undefined;
      let lambdaServices: GatewayServices | undefined;
      try {
        const services = context.gatewayServices ?? servicesFromEnvironment(openStore);
        lambdaServices = context.gatewayServices ? undefined : services;
        if (lambdaServices) await telemetryReady(lambdaServices);
        const giveUpBy = unreadResponseDeadline(services.config.maxRequestMs);
        const response = await answer(services, fromFunctionUrlEvent(event, client.signal), handle);
        settlement = response.afterResponse;
        recordResponse(services.config, response.statusCode);
        await writeResponse(responseStream, response, giveUpBy);
      } catch (error) {
        // A client that left breaks the pipe; the upstream was aborted through the signal or the body's cancel.
        if (!client.signal.aborted) throw error;
      } finally {
        client.stop();
        await settlement;
        // On Lambda the environment may freeze once the handler returns: the request's spans leave before that,
        // after its answer is complete. The local host's batch processor exports on its own schedule.
        await lambdaServices?.telemetry?.flush().catch(() => undefined);
      }
    },
  );
}

/**
 * The request deadline ends the upstream and settles the request whether or not the client reads (the relay's own
 * timer), and a client that reads late still gets what was sent and the time-out event. A client that never reads
 * again would hold the response, and its connection, for ever: so the writer breaks off a response still unwritten
 * some time after the deadline (as long again, between 5 seconds and a minute), counted from the request's start.
 * On Lambda the function's time-out comes first; on the local host this is what frees the socket.
 */
function unreadResponseDeadline(maxRequestMs: number): Deadline {
  const graceMs = Math.min(60_000, Math.max(5_000, maxRequestMs));
  return deadlineIn(maxRequestMs + graceMs);
}

/** The answer to one request: the front door's check, then the route's handler (or the unknown route's answer). */
async function answer(
  services: GatewayServices,
  request: GatewayRequest,
  handle: RouteHandler,
): Promise<GatewayResponse> {
  const route = matchRoute(request.method, request.path, services.config.upstreamPrefixes);
  try {
    await admitThroughFrontDoor(services, request);
  } catch (error) {
    const envelope = route ? errorEnvelopeFor(route.route.wire) : errorEnvelopeOfRequest(request.path, request.headers);
    return renderError(toGatewayError(error), envelope);
  }
  return route ? handle(services, request, route) : unknownRoute(request, services.config);
}

/**
 * How a streaming function learns that its client is gone: the response stream errors or closes before it has
 * finished (and with it every later write fails). On Lambda the stream is the runtime client's request to the
 * runtime API; it ends that way when the API aborts the response. The signal also covers the time before the
 * first write, while the function still waits for the upstream.
 */
function watchClient(stream: ResponseStream): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const onError = () => controller.abort();
  const onClose = () => {
    if (!stream.writableFinished) controller.abort();
  };
  stream.on('error', onError);
  stream.on('close', onClose);
  return {
    signal: controller.signal,
    stop() {
      stream.off('error', onError);
      stream.off('close', onClose);
    },
  };
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
 * A path no route serves: 405 when another method would have matched, else 404 (spec §7), in the envelope of the
 * client the path or headers tell. The read stage's refusals come first, so a WebSocket handshake (a GET) or a key
 * in the URL is refused as such on any path.
 */
export function unknownRoute(
  request: GatewayRequest,
  config: Pick<GatewayConfig, 'bodyLimitBytes' | 'upstreamPrefixes'>,
): GatewayResponse {
  const envelope = errorEnvelopeOfRequest(request.path, request.headers);
  try {
    checkRequestEnvelope(request, config.bodyLimitBytes);
  } catch (error) {
    return renderError(toGatewayError(error), envelope);
  }
  const methods = routesForPath(request.path, config.upstreamPrefixes).map((route) => route.method);
  const error =
    envelope === 'gemini' && request.method === 'POST'
      ? unservedGoogleMethod(request.path)
      : (storedResponseRefusal(request.method, request.path) ??
        (methods.length > 0
          ? new GatewayError(405, 'method_not_allowed', `Use ${methods.join(' or ')} for ${request.path}.`, {
              headers: { allow: methods.join(', ') },
            })
          : new GatewayError(404, 'unknown_route', `No route at ${request.method} ${request.path}.`)));
  return renderError(error, envelope);
}

/**
 * A POST under `/v1beta` (or a `/v1` path ending in a method) that no route answers calls a Google method the
 * gateway does not serve (`:embedContent`, say): a 404 that names the ones it serves, not a 405 for the model read
 * that shares the path.
 */
function unservedGoogleMethod(path: string): GatewayError {
  try {
    parseGenerateContentPath({ innerPath: googleInnerPath(path), query: new URLSearchParams() });
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  return new GatewayError(404, 'unknown_route', `No route at POST ${path}.`);
}
