import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { HostContext } from '../../functions/streaming-entry.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { payloadTooLarge } from '../../shared/http/read-request.ts';
import { renderError } from '../../shared/http/render-error.ts';
import type { FunctionId } from '../../shared/http/route-table.ts';
import { fallbackFunctionId, matchRoute, matchStaticRoute } from '../../shared/http/route-table.ts';
import { logger } from '../../shared/observability/logger.ts';
import { readWholeBody } from '../../shared/streams/read-whole-body.ts';
import { errorEnvelopeFor, errorEnvelopeOfRequest } from '../../shared/wires/wire-names.ts';
import { toFunctionUrlEvent } from './function-url-event.ts';
import { createRuntimeResponseStream } from './lambda-stream-shim.ts';
import { answerThenDiscardBody, defaultLingeringBounds, type LingeringBounds } from './lingering-close.ts';
import type { LocalFunction } from './local-functions.ts';
import { readRequestTarget } from './request-target.ts';
import { serveStaticPage } from './serve-static-page.ts';

/**
 * The one-machine host: a Node HTTP server that turns each request into a function-URL event and hands it,
 * with the real response as its stream, to the same handler Lambda runs. It reads the body only up to the
 * limit, so an oversized request is refused without being buffered (and the rest of it read and dropped, so the
 * client can read the refusal: lingering-close.ts).
 */
export function createLocalServer(
  services: GatewayServices,
  functions: Record<FunctionId, LocalFunction>,
  lingeringBounds: LingeringBounds = defaultLingeringBounds,
): Server {
  return createServer((request, response) => {
    handle(services, functions, request, response, lingeringBounds).catch((error: unknown) => {
      // A client that broke off its own request (a malformed or aborted body) is not a gateway fault to log.
      if (request.destroyed || request.readableAborted) {
        response.destroy();
        return;
      }
      logger.error('local host failed to answer', { error });
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end();
    });
  });
}

async function handle(
  services: GatewayServices,
  functions: Record<FunctionId, LocalFunction>,
  request: IncomingMessage,
  response: ServerResponse,
  lingeringBounds: LingeringBounds,
): Promise<void> {
  const read = readRequestTarget(request);
  if (!read.ok) {
    const answer = renderError(read.error, 'openai');
    response.writeHead(answer.statusCode, { ...answer.headers, connection: 'close' }).end(answer.body);
    request.resume();
    return;
  }
  const { target } = read;
  const method = request.method ?? 'GET';
  const staticRoute = matchStaticRoute(method, target.path);
  if (staticRoute) {
    await serveStaticPage(staticRoute, target.path, method, response);
    return;
  }
  const route = matchRoute(method, target.path, services.config.upstreamPrefixes);
  const body = await readLimited(request, services.config.bodyLimitBytes);
  if (body === undefined) {
    const envelope = route ? errorEnvelopeFor(route.route.wire) : errorEnvelopeOfRequest(target.path, request.headers);
    const answer = renderError(payloadTooLarge(services.config.bodyLimitBytes), envelope);
    answerThenDiscardBody(request, response, answer, lingeringBounds);
    return;
  }
  // A path no route serves goes where CloudFront's default behaviour sends it, to be checked and answered there.
  const functionId = route?.route.functionId ?? fallbackFunctionId;
  const requestId = randomUUID();
  const context = {
    awsRequestId: requestId,
    functionName: functionId,
    gatewayServices: services,
  } as unknown as HostContext;
  // The handler writes to a stream like the runtime's, never to the HTTP response itself (lambda-stream-shim.ts).
  const stream = createRuntimeResponseStream(response);
  await functions[functionId](toFunctionUrlEvent(request, target, body, requestId), stream, context);
}

/** Reads the body up to the limit; `undefined` as soon as it is over (a stated length over it is not read at all). */
function readLimited(request: IncomingMessage, limitBytes: number): Promise<Buffer | undefined> {
  const statedLength = Number(request.headers['content-length'] ?? 0);
  if (statedLength > limitBytes) return Promise.resolve(undefined);
  return readWholeBody(request, { limitBytes, brokenOff: 'the client closed the request before its body ended' });
}
