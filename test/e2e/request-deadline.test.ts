import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { createStreamGate, type FakeUpstream, type UpstreamBehaviour } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

// Each chunk comes well within the time-out, but the whole stream takes longer than the request deadline. The
// deadline leaves a loaded machine ample time for the first byte (at 800 ms a busy 2-core runner answered 504).
const maxRequestMs = 2_500;
const fixture = useGatewayFixture({
  environment: { GATEWAY_MAX_REQUEST_MS: String(maxRequestMs), GATEWAY_UPSTREAM_TIMEOUT_MS: '5000' },
  connections: [{ provider: 'acme', wire: 'openai-chat', models: ['slow'] }],
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

describe('the request deadline', () => {
  it('cuts a stream that outlives it, charges the reservation and releases the lease before the lease can expire', async () => {
    expect(gateway.host.services.config.leaseTtlMs).toBeGreaterThan(gateway.host.services.config.maxRequestMs);
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const client = openaiClient(gateway, key);
    upstream.nextResponse({
      type: 'answer',
      delayBetweenChunksMilliseconds: 200,
      textChunks: Array.from({ length: 30 }, (_, index) => `part${index} `),
    });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'acme/slow', messages: [{ role: 'user', content: 'take your time' }], stream: true })
      .withResponse();
    let text = '';
    await expect(async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    }).rejects.toThrow(/stopped sending/);
    expect(text).toContain('part0');
    expect(text).not.toContain('part29');
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
    expect(record.charge).toBe(record.reserved);
    expect((await memberAfterSettlement(gateway.host.services, memberId)).leases).toEqual({});
    expect((await upstream.waitForClientClose(0)).clientClosedEarly).toBe(true);
  });
});

/** Sends a chat request over node:http, so the test decides when the response is read. */
async function openChatStream(key: string, body: Record<string, unknown>): Promise<IncomingMessage> {
  const payload = JSON.stringify(body);
  const outgoing = httpRequest(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    // A connection of its own, never one an earlier test left open.
    agent: false,
  });
  outgoing.end(payload);
  const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
  return response;
}

describe('the request deadline without the client`s help', () => {
  it('ends a stream whose client stopped reading: the upstream is closed and the request settled, still unread', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 10_000_000 });
    // Far more than the sockets between the three parties buffer, sent as fast as it is taken.
    const piece = 'x'.repeat(16 * 1024);
    upstream.nextResponse({ type: 'answer', textChunks: Array.from({ length: 2_000 }, () => piece) });
    const response = await openChatStream(key, {
      model: 'acme/slow',
      messages: [{ role: 'user', content: 'flood me' }],
      stream: true,
    });
    expect(response.statusCode).toBe(200);
    const [first] = (await once(response, 'data')) as [Buffer];
    expect(first.length).toBeGreaterThan(0);
    response.pause();

    // Nothing is read from here on: the gateway alone must close the upstream at the deadline.
    const ended = await upstream.waitForOutcome(0, maxRequestMs + 10_000);
    expect(ended).toBe('client-closed');
    const sent = upstream.requests[0]!;
    expect(sent.chunksSent).toBeLessThan(2_000);
    // Not before the deadline: the upstream received the request a little after the deadline started.
    expect(sent.closedAtMs! - sent.receivedAtMs).toBeGreaterThan(maxRequestMs / 2);
    const record = await settledRecord(gateway.host.services, response.headers['x-request-id'] as string);
    expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
    expect((await memberAfterSettlement(gateway.host.services, memberId)).leases).toEqual({});

    // Read again, the client gets what was already on its way and the end of the stream, with the time-out event.
    response.resume();
    let tail = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-4_096);
    });
    await once(response, 'end');
    expect(tail).toContain('upstream_timeout');
  });

  it('breaks off a response its client never reads again, some time after the deadline, freeing the connection', async () => {
    const { key } = await gateway.admin.createMemberWithKey({ dailyTokens: 10_000_000 });
    const gatewaySockets: Socket[] = [];
    const onConnection = (socket: Socket) => gatewaySockets.push(socket);
    gateway.host.server.on('connection', onConnection);
    const piece = 'x'.repeat(16 * 1024);
    upstream.nextResponse({ type: 'answer', textChunks: Array.from({ length: 2_000 }, () => piece) });
    const response = await openChatStream(key, {
      model: 'acme/slow',
      messages: [{ role: 'user', content: 'flood me and never read' }],
      stream: true,
    });
    gateway.host.server.off('connection', onConnection);
    expect(response.statusCode).toBe(200);
    await once(response, 'data');
    response.pause();
    // The gateway's end of this client's connection (a paused client cannot see its own end close).
    const clientPort = response.socket.localPort;
    const gatewaySide = gatewaySockets.find((socket) => socket.remotePort === clientPort);
    expect(gatewaySide).toBeDefined();
    // Never read again: the request settles at the deadline, and the gateway then closes the connection itself.
    expect(await upstream.waitForOutcome(upstream.requests.length - 1, maxRequestMs + 10_000)).toBe('client-closed');
    if (!gatewaySide!.destroyed) await once(gatewaySide!, 'close');
    // Read now, the client gets what was on its way and then a connection cut short, not the end of the stream.
    const cutShort = new Promise<Error>((resolve) => response.once('error', resolve));
    response.resume();
    expect((await cutShort).message).toBe('aborted');
    expect(response.complete).toBe(false);
  });

  it.each<[string, UpstreamBehaviour]>([
    ['the upstream sends nothing at all', { type: 'hang' }],
    ['a whole answer`s body never comes after its headers', { type: 'answer', stallAfterHeaders: true }],
  ])('answers 504 at the deadline when %s, and closes the upstream', async (_case, behaviour) => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 10_000_000 });
    upstream.nextResponse(behaviour);
    const client = openaiClient(gateway, key);
    const error = await client.chat.completions
      .create({ model: 'acme/slow', messages: [{ role: 'user', content: 'anyone?' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(await upstream.waitForOutcome(0)).toBe('client-closed');
    const sent = upstream.requests[0]!;
    expect(sent.closedAtMs! - sent.receivedAtMs).toBeGreaterThan(maxRequestMs / 2);
    expect((await memberAfterSettlement(gateway.host.services, memberId)).leases).toEqual({});
  });

  it('ends a stream whose first event never comes', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 10_000_000 });
    upstream.nextResponse({ type: 'answer', gate: createStreamGate({ initiallyReleased: 0 }) });
    const response = await openChatStream(key, {
      model: 'acme/slow',
      messages: [{ role: 'user', content: 'anyone?' }],
      stream: true,
    });
    expect(response.statusCode).toBe(200);
    response.setEncoding('utf8');
    let text = '';
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    await once(response, 'end');
    expect(text).toContain('upstream_timeout');
    expect(await upstream.waitForOutcome(0)).toBe('client-closed');
    expect((await memberAfterSettlement(gateway.host.services, memberId)).leases).toEqual({});
  });
});
