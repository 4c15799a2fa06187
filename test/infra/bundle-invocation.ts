import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** Status and headers as the function wrote them with `HttpResponseStream.from`, and the streamed body. */
export interface StreamedAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

interface ResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string>;
}

/** The response stream Lambda hands a RESPONSE_STREAM handler, recording what the function sends. */
export class RecordingResponseStream extends Writable {
  prelude: ResponsePrelude | undefined;
  readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    done();
  }
}

type StreamingHandler = (event: APIGatewayProxyEventV2, responseStream: Writable, context: Context) => Promise<unknown>;
type PlainHandler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * The `awslambda` global of the Lambda Node.js runtime, as far as streaming entries use it: `streamifyResponse`
 * marks the handler (Lambda then calls it with a response stream), `HttpResponseStream.from` sends the prelude.
 * It must exist before a bundle is evaluated: middy reads it when the handler is built.
 */
export function installAwsLambdaStub(): void {
  const global = globalThis as { awslambda?: Record<string, unknown> };
  global.awslambda = Object.assign(global.awslambda ?? {}, {
    streamifyResponse: <Handler>(handler: Handler) => handler,
    HttpResponseStream: {
      from(stream: RecordingResponseStream, prelude: ResponsePrelude) {
        stream.prelude = prelude;
        return stream;
      },
    },
  });
}

/** Imports a built `index.mjs` the way the Lambda runtime does, and returns its `handler` export. */
export async function loadBundleHandler(bundlePath: string): Promise<unknown> {
  const bundle = (await import(pathToFileURL(bundlePath).href)) as { handler?: unknown };
  if (typeof bundle.handler !== 'function') throw new Error(`${bundlePath} exports no handler`);
  return bundle.handler;
}

export interface UrlRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** One function-URL invocation (payload 2.0) of a streaming handler, as Lambda makes it. */
export async function invokeStreaming(
  handler: unknown,
  request: UrlRequest,
  stream = new RecordingResponseStream(),
): Promise<StreamedAnswer> {
  await (handler as StreamingHandler)(functionUrlEvent(request), stream, lambdaContext('gateway-function'));
  if (!stream.prelude) throw new Error(`${request.method} ${request.path} wrote no status`);
  return {
    statusCode: stream.prelude.statusCode ?? 200,
    headers: stream.prelude.headers ?? {},
    body: Buffer.concat(stream.chunks).toString('utf8'),
  };
}

/** One invocation of a plain handler, as EventBridge makes it on a schedule. */
export async function invokeScheduled(handler: unknown): Promise<unknown> {
  const now = new Date();
  const event = {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: now.toISOString(),
    region: 'eu-west-1',
    resources: ['arn:aws:events:eu-west-1:123456789012:rule/reaper-schedule'],
    detail: {},
  };
  return (handler as PlainHandler)(event, lambdaContext('reaper'));
}

function functionUrlEvent(request: UrlRequest): APIGatewayProxyEventV2 {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.path,
    rawQueryString: request.query ?? '',
    headers: {
      host: 'abcdefghij.lambda-url.eu-west-1.on.aws',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
    },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abcdefghij',
      domainName: 'abcdefghij.lambda-url.eu-west-1.on.aws',
      domainPrefix: 'abcdefghij',
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'bundle-test',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body === undefined ? {} : { body: Buffer.from(body).toString('base64') }),
    isBase64Encoded: body !== undefined,
  };
}

function lambdaContext(functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bundle-test',
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
