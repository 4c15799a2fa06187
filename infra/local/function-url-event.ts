import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RequestTarget } from './request-target.ts';

/**
 * Turns a Node request and its (already limited) body into the function-URL event Lambda would deliver, with the
 * invocation's request id.
 */
export function toFunctionUrlEvent(
  request: IncomingMessage,
  target: RequestTarget,
  body: Buffer,
  requestId: string,
): APIGatewayProxyEventV2 {
  // Names in lowercase and repeated headers joined with a comma, as a function URL gives them (Node's `headers`
  // would keep only the first Authorization), so two different keys are refused on both hosts alike. No prototype:
  // a header called `constructor` is a header like any other.
  const headers: Record<string, string> = Object.create(null);
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase();
    const value = raw[index + 1] as string;
    const earlier = headers[name];
    headers[name] = earlier === undefined ? value : `${earlier},${value}`;
  }
  // A text body comes as the text, as a function URL delivers JSON; anything that is not UTF-8, base64-encoded,
  // as a function URL delivers binary, for the handler to refuse.
  const text = isUtf8(body);
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
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: text ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !text,
  };
}
