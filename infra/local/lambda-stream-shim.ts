import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';

/**
 * The `awslambda` global of the Lambda Node.js runtime, for the local host, and the response stream the runtime
 * hands a streaming handler, modelled on the runtime interface client (aws-lambda-nodejs-runtime-interface-client,
 * src/stream/response-stream.ts and http-response-stream.ts) so that what the tests prove here holds on Lambda:
 *
 * - the handler gets a write-only stream, not the HTTP response: it can learn of the client only through this
 *   stream's own events, as on Lambda, where the stream is a request to the runtime API;
 * - `HttpResponseStream.from` sets the integration content type and writes the JSON prelude and eight NUL bytes
 *   before the first write, and the local side (standing in for the function URL) reads the status and headers
 *   back from those bytes;
 * - a client that goes away destroys the stream with an error, which is how the runtime client ends it when the
 *   runtime API aborts the response (`res.on('aborted', …) → req.destroy(err)`): 'error', then 'close', and
 *   every later write fails. Whether Lambda's side does abort it when a function URL's client disconnects is not
 *   documented, and has been reported not to happen (docs/deploy-aws.md, "Cancellation on AWS"); the entry reacts the same
 *   either way (functions/streaming-entry.ts).
 */
export function installLambdaStreamShim(): void {
  const global = globalThis as { awslambda?: Record<string, unknown> };
  // Powertools' invoke store may have created the object already; add to it rather than replace it.
  const existing = global.awslambda ?? {};
  if (existing['HttpResponseStream'] === HttpResponseStream) return;
  global.awslambda = Object.assign(existing, {
    streamifyResponse: <Handler>(handler: Handler) => handler,
    HttpResponseStream,
  });
}

const integrationContentType = 'application/vnd.awslambda.http-integration-response';
const delimiter = Buffer.alloc(8);

/** The part of the runtime's response stream a handler may use (the runtime exposes no more than a Writable). */
export interface RuntimeResponseStream extends Writable {
  setContentType(contentType: string): void;
  _onBeforeFirstWrite?: ((write: (chunk: string | Uint8Array) => void) => void) | undefined;
}

const HttpResponseStream = {
  from(stream: RuntimeResponseStream, prelude: Record<string, unknown>): RuntimeResponseStream {
    stream.setContentType(integrationContentType);
    const metadata = JSON.stringify(prelude);
    stream._onBeforeFirstWrite = (write) => {
      write(metadata);
      write(delimiter);
    };
    return stream;
  },
};

/**
 * The response stream of one invocation, delivering to the client's HTTP response as a function URL would: status
 * and headers from the prelude, then the body as it is written, with backpressure.
 */
export function createRuntimeResponseStream(response: ServerResponse): RuntimeResponseStream {
  let contentType = 'application/octet-stream';
  let wroteAny = false;
  let prelude: Buffer | undefined = Buffer.alloc(0);

  const deliver = (chunk: Buffer, done: (error?: Error | null) => void) => {
    if (prelude !== undefined && contentType === integrationContentType) {
      prelude = Buffer.concat([prelude, chunk]);
      const end = prelude.indexOf(delimiter);
      if (end === -1) {
        done();
        return;
      }
      const {
        statusCode = 200,
        headers = {},
        cookies = [],
      } = JSON.parse(prelude.subarray(0, end).toString('utf8')) as {
        statusCode?: number;
        headers?: Record<string, string>;
        cookies?: string[];
      };
      const rest = prelude.subarray(end + delimiter.length);
      prelude = undefined;
      // A function URL sends each of the prelude's `cookies` as a Set-Cookie header of its own.
      response.writeHead(statusCode, cookies.length > 0 ? { ...headers, 'set-cookie': cookies } : headers);
      if (rest.length === 0) done();
      else if (response.write(rest)) done();
      else response.once('drain', () => done());
      return;
    }
    if (!response.headersSent) response.writeHead(200, { 'content-type': contentType });
    prelude = undefined;
    if (response.write(chunk)) done();
    else response.once('drain', () => done());
  };

  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (response.destroyed) {
        done(new Error('the response was closed'));
        return;
      }
      deliver(chunk, done);
    },
    final(done) {
      if (!response.headersSent) {
        // A stream ended before its prelude was complete: the function URL has no status to send.
        response.writeHead(wroteAny ? 502 : 200, { 'content-type': contentType });
      }
      response.end(() => done());
    },
  }) as RuntimeResponseStream;

  stream.setContentType = (value) => {
    if (wroteAny) throw new Error('Cannot set content-type, too late.');
    contentType = value;
  };
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!wroteAny && typeof stream._onBeforeFirstWrite === 'function')
      stream._onBeforeFirstWrite((part) => write(part));
    wroteAny = true;
    return write(typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : JSON.stringify(chunk), ...rest);
  }) as typeof stream.write;

  // The runtime client listens to its own request's errors; an unheard 'error' would end the process.
  stream.on('error', () => {});
  // A function that breaks its response off ends the client's connection, as the runtime API does on Lambda.
  stream.once('close', () => {
    if (!response.writableFinished) response.destroy();
  });
  response.once('close', () => {
    if (!response.writableFinished && !stream.destroyed) {
      stream.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    }
  });
  return stream;
}
