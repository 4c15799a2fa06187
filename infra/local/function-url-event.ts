import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RequestTarget } from './request-target.ts';

/** Turns a Node request and its (already limited) body into the function-URL event Lambda would deliver. */
export function toFunctionUrlEvent(
  request: IncomingMessage,
  target: RequestTarget,
  body: Buffer,
): APIGatewayProxyEventV2 {
  // Repeated headers are joined with a comma as a function URL joins them (Node's `headers` would keep only the
  // first Authorization), so two different keys are refused on both hosts alike.
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (values !== undefined) headers[name] = values.join(',');
  }
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: target.path,
    rawQueryString: target.query,
    headers,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: target.host,
      domainPrefix: target.host.split('.')[0] ?? target.host,
      http: {
        method: request.method ?? 'GET',
        path: target.path,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}
