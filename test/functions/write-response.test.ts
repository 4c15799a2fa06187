import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { writeResponse } from '../../functions/write-response.ts';
import { installLambdaStreamShim, type RuntimeResponseStream } from '../../infra/local/lambda-stream-shim.ts';
import { useRuntimeStreamServer } from '../support/runtime-stream-server.ts';

/** A body produced as it is pulled, counting the pulls and whether the writer ended it early. */
function countedBody(chunks: readonly string[]) {
  const state = { pulled: 0, returned: false };
  const encoder = new TextEncoder();
  const body: AsyncIterableIterator<Uint8Array> = {
    async next() {
      const chunk = chunks[state.pulled];
      if (chunk === undefined) return { value: undefined, done: true };
      state.pulled++;
      return { value: encoder.encode(chunk), done: false };
    },
    async return() {
      state.returned = true;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return body;
    },
  };
  return { body, state };
}

describe('writing a response to the runtime response stream', () => {
  const server = useRuntimeStreamServer();

  it('sends status and headers, then a whole body, and resolves once the stream has it all', async () => {
    let written: Promise<void> | undefined;
    server.handle = (stream) => {
      written = writeResponse(stream, { statusCode: 201, headers: { 'x-test': 'yes' }, body: '{"ok":true}' });
    };
    const response = await fetch(server.url);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-test')).toBe('yes');
    expect(await response.text()).toBe('{"ok":true}');
    await expect(written).resolves.toBeUndefined();
  });

  it('sends status and headers for an empty body too', async () => {
    server.handle = (stream) => {
      void writeResponse(stream, { statusCode: 204, headers: { 'x-empty': '1' }, body: '' });
    };
    const response = await fetch(server.url);
    expect(response.status).toBe(204);
    expect(response.headers.get('x-empty')).toBe('1');
  });

  it('writes a produced body chunk by chunk, and an empty one still sends its status', async () => {
    const { body } = countedBody(['data: 1\n\n', 'data: 2\n\n', 'data: [DONE]\n\n']);
    server.handle = (stream) => {
      void writeResponse(stream, { statusCode: 200, headers: { 'content-type': 'text/event-stream' }, body });
    };
    expect(await (await fetch(server.url)).text()).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
    const empty = countedBody([]);
    server.handle = (stream) => {
      void writeResponse(stream, { statusCode: 202, headers: {}, body: empty.body });
    };
    const response = await fetch(server.url);
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });

  it('rejects when the client goes away mid-stream, and ends the body so its upstream stops', async () => {
    // A body that never ends on its own: the client's leaving is the only way out.
    const state = { returned: false };
    const endless: AsyncIterableIterator<Uint8Array> = {
      async next() {
        await nextTurn();
        return { value: new Uint8Array(16 * 1024), done: false };
      },
      async return() {
        state.returned = true;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return endless;
      },
    };
    let written: Promise<void> | undefined;
    const started = new Promise<void>((resolve) => {
      server.handle = (stream) => {
        written = writeResponse(stream, { statusCode: 200, headers: {}, body: endless });
        resolve();
      };
    });
    const client = httpRequest(server.url);
    client.on('response', (response) => response.once('data', () => client.destroy()));
    client.on('error', () => {});
    client.end();
    await started;
    await expect(written).rejects.toThrow();
    expect(state.returned).toBe(true);
  });
});

describe('backpressure', () => {
  it('pulls the next chunk only once the stream took the last one', async () => {
    installLambdaStreamShim();
    const held: (() => void)[] = [];
    // A response stream that takes one chunk at a time and holds each until released, like a slow client.
    const slow = Object.assign(
      new Writable({
        highWaterMark: 1,
        write(_chunk, _encoding, done) {
          held.push(done);
        },
      }),
      { setContentType() {} },
    ) as unknown as RuntimeResponseStream;
    const { body, state } = countedBody(['a', 'b', 'c', 'd']);
    const written = writeResponse(slow, { statusCode: 200, headers: {}, body });
    for (let taken = 1; taken <= 4; taken++) {
      for (let turn = 0; turn < 20; turn++) await nextTurn();
      // Nothing is pulled ahead of the stream: the chunk it holds, and none after it.
      expect(state.pulled).toBe(taken);
      held.shift()?.();
    }
    await written;
    expect(state.returned).toBe(false);
  });
});
