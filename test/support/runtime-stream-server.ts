import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import {
  createRuntimeResponseStream,
  installLambdaStreamShim,
  type RuntimeResponseStream,
} from '../../infra/local/lambda-stream-shim.ts';

/**
 * An HTTP server that hands each request's response to `handle` as the local host's runtime response stream
 * (lambda-stream-shim.ts), the way a streaming function receives it; a test sets `handle` before each request.
 */
export interface RuntimeStreamServer {
  /** Known once the file's `beforeAll` ran. */
  url: string;
  handle: (stream: RuntimeResponseStream) => void;
}

/** The server for the tests of one file: started before them, closed after them. */
export function useRuntimeStreamServer(): RuntimeStreamServer {
  const fixture: RuntimeStreamServer = { url: '', handle: () => {} };
  let server: Server | undefined;
  beforeAll(async () => {
    installLambdaStreamShim();
    server = createServer((_request, response) => fixture.handle(createRuntimeResponseStream(response)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    fixture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());
  return fixture;
}
