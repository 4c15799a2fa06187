import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RuntimeResponseStream } from '../../infra/local/lambda-stream-shim.ts';
import { createStreamGate, type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { useRuntimeStreamServer } from '../support/runtime-stream-server.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * The local host hands each function a response stream modelled on the Lambda runtime's (lambda-stream-shim.ts),
 * so that the function can learn of its client only the way it would on Lambda: through that stream's own
 * 'error' and 'close'. These tests hold the shim to the runtime's behaviour, then drive cancellations through it.
 */
describe('the runtime response stream', () => {
  const server = useRuntimeStreamServer();

  it('sends the prelude of HttpResponseStream.from as status and headers, then the body', async () => {
    server.handle = (stream) => {
      const prelude = { statusCode: 201, headers: { 'content-type': 'text/plain', 'x-test': 'yes' } };
      const wrapped = (globalThis as unknown as { awslambda: typeof awslambda }).awslambda.HttpResponseStream.from(
        stream,
        prelude,
      );
      wrapped.write('hello ');
      wrapped.end('world');
    };
    const response = await fetch(server.url);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-test')).toBe('yes');
    expect(await response.text()).toBe('hello world');
  });

  it('errors and closes the stream when the client goes away, as the runtime client does; later writes fail', async () => {
    const events: string[] = [];
    const done = new Promise<RuntimeResponseStream>((resolve) => {
      server.handle = (stream) => {
        stream.on('error', (error: NodeJS.ErrnoException) => events.push(`error ${error.code}`));
        stream.on('close', () => {
          events.push('close');
          resolve(stream);
        });
        stream.write('first chunk');
      };
    });
    const outgoing = httpRequest(server.url);
    outgoing.on('response', (response) => response.once('data', () => outgoing.destroy()));
    outgoing.on('error', () => {});
    outgoing.end();
    const stream = await done;
    expect(events).toEqual(['error ECONNRESET', 'close']);
    expect(stream.writableFinished).toBe(false);
    const written = await new Promise<Error | null | undefined>((resolve) => stream.write('late', resolve));
    expect(written).toBeInstanceOf(Error);
  });

  it('refuses a content type set after the first write, as the runtime client does', () => {
    server.handle = (stream) => {
      stream.write('x');
      expect(() => stream.setContentType('text/plain')).toThrow(/too late/);
      stream.end();
    };
    return fetch(server.url).then((response) => response.text());
  });
});

describe('a client that leaves, through the local host', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let key: string;
  let memberId: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway();
    await gateway.admin.createConnection({
      provider: 'openai',
      wire: 'openai-chat',
      baseUrl: `${upstream.url}/v1`,
      models: ['leaving'],
    });
    // One request at a time: a lease left behind would refuse the next request with 429.
    ({ key, memberId } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, concurrency: 1 }));
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.reset());

  function start(body: unknown, signal: AbortSignal) {
    return fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  }

  async function expectLeaseReleased() {
    const member = await gateway.host.services.store.admission.account(memberId);
    expect(member?.leases).toEqual({});
    upstream.nextResponse({ type: 'answer' });
    const next = await start(
      { model: 'openai/leaving', messages: [{ role: 'user', content: 'next' }] },
      new AbortController().signal,
    );
    expect(next.status).toBe(200);
    await next.text();
  }

  it('before the first byte: the upstream is closed early, the request settles conservatively, the lease is freed', async () => {
    upstream.nextResponse({ type: 'hang' });
    const controller = new AbortController();
    const pending = start(
      { model: 'openai/leaving', messages: [{ role: 'user', content: 'wait' }] },
      controller.signal,
    );
    await upstream.waitForRequest(0);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect((await upstream.waitForClientClose(0)).clientClosedEarly).toBe(true);
    await Promise.allSettled([...gateway.host.services.background]);
    await expectLeaseReleased();
  });

  it('mid-stream: the upstream is closed early, the reservation is the charge, the lease is freed', async () => {
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate, textChunks: ['a ', 'b ', 'c ', 'd'] });
    const controller = new AbortController();
    const response = await start(
      { model: 'openai/leaving', messages: [{ role: 'user', content: 'stream' }], stream: true },
      controller.signal,
    );
    gate.release(2);
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    expect((await upstream.waitForClientClose(0)).clientClosedEarly).toBe(true);
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
    expect(record.charge).toBe(record.reserved);
    await expectLeaseReleased();
  });
});
