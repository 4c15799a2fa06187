import type { ServerResponse } from 'node:http';

interface ResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string>;
}

/**
 * The `awslambda` global that the Lambda Node.js runtime provides for response streaming, for the local host.
 * `streamifyResponse` marks nothing (the local server calls handlers with a stream itself) and
 * `HttpResponseStream.from` writes the status and headers on the real Node response, which is the stream
 * the handler's body is piped into, so backpressure and client disconnects behave as they do on Lambda.
 */
export function installLambdaStreamShim(): void {
  const global = globalThis as { awslambda?: Record<string, unknown> };
  // Powertools' invoke store may have created the object already; add to it rather than replace it.
  const existing = global.awslambda ?? {};
  if (typeof existing.streamifyResponse === 'function') return;
  global.awslambda = Object.assign(existing, {
    streamifyResponse: <Handler>(handler: Handler) => handler,
    HttpResponseStream: {
      from(response: ServerResponse, prelude: ResponsePrelude) {
        response.writeHead(prelude.statusCode ?? 200, prelude.headers ?? {});
        return response;
      },
    },
  });
}
