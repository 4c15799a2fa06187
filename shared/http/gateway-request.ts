import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** A request as every handler sees it, whichever host received it. Header names are lowercase. */
export interface GatewayRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  /**
   * The body as the function URL delivered it: text (a JSON body, decoded once by whoever received it) or bytes
   * (one that came base64-encoded). `readJsonObject` reads either.
   */
  body: string | Buffer;
  requestId: string;
  /** Aborted when the caller goes away before the response starts; hosts that can tell provide it. */
  clientSignal: AbortSignal | undefined;
}

/** A response: a whole body, or a stream relayed as it arrives. */
export interface GatewayResponse {
  statusCode: number;
  headers: Record<string, string>;
  /**
   * `Set-Cookie` values, apart from the headers because a function URL takes them as the prelude's `cookies` (one
   * header name cannot carry several in a map); only sign-in sets any.
   */
  cookies?: string[];
  /** A whole body, or one produced as it is pulled (an async iterator: each chunk is read when the last is taken). */
  body: string | AsyncIterable<Uint8Array>;
  /** Work that must finish after the client's response ends (settlement); hosts await it before returning. */
  afterResponse?: Promise<void>;
}

/** Both hosts produce function-URL events (payload 2.0); this turns one into a GatewayRequest. */
export function fromFunctionUrlEvent(event: APIGatewayProxyEventV2, clientSignal?: AbortSignal): GatewayRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  const rawBody = event.body ?? '';
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    headers,
    body: event.isBase64Encoded ? Buffer.from(rawBody, 'base64') : rawBody,
    requestId: event.requestContext.requestId,
    clientSignal,
  };
}
