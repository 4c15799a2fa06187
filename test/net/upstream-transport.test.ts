import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestUpstream } from '../../shared/net/upstream-transport.ts';

/** A server whose answer each test chooses. */
let answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end();
let base: string;
const server = createServer((request, response) => {
  request.resume();
  answer(request, response);
});

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const call = (signal = new AbortController().signal) =>
  requestUpstream(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"stream":true}',
    signal,
    network: 'private-allowed',
  });

describe("an upstream's answer", () => {
  it('gives its status, its headers by any case (repeated ones joined) and its whole body as text', async () => {
    answer = (_request, response) => {
      response.writeHead(200, [
        ['Content-Type', 'application/json'],
        ['X-Ratelimit', 'a'],
        ['x-ratelimit', 'b'],
      ]);
      response.write('\uFEFF{"text":"ünï');
      response.end('code"}');
    };
    const response = await call();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('X-RATELIMIT')).toBe('a, b');
    expect(response.headers.get('retry-after')).toBeNull();
    // A leading byte order mark is dropped, as fetch's text() drops it.
    expect(await response.text()).toBe('{"text":"ünïcode"}');
  });

  it('has an empty body for a status that carries none', async () => {
    answer = (_request, response) => response.writeHead(204).end();
    const response = await call();
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('streams its body as Node reads it', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      setImmediate(() => response.end('data: 2\n\n'));
    };
    const response = await call();
    const chunks: string[] = [];
    for await (const chunk of response.body) chunks.push(String(chunk));
    expect(chunks.join('')).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('fails with an AbortError carrying the reason when aborted before the answer', async () => {
    answer = () => {};
    const controller = new AbortController();
    const pending = call(controller.signal);
    const reason = new Error('client left');
    setImmediate(() => controller.abort(reason));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError', cause: reason });
    const aborted = new AbortController();
    aborted.abort(reason);
    await expect(call(aborted.signal)).rejects.toMatchObject({ name: 'AbortError', cause: reason });
  });

  it('ends its body with the reason when aborted after the headers', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    };
    const controller = new AbortController();
    const response = await call(controller.signal);
    const reason = new Error('time-out');
    const reading = response.text();
    controller.abort(reason);
    await expect(reading).rejects.toMatchObject({ cause: reason });
  });

  it('lets a body it will not read go, with its connection', async () => {
    answer = (_request, response) => {
      response.writeHead(302, { location: 'http://elsewhere.example/' });
      response.write('moved');
    };
    const response = await call();
    const closed = once(response.body, 'close');
    response.discard();
    await closed;
    expect(response.body.destroyed).toBe(true);
  });
});
