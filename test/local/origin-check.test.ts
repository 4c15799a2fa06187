import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadLocalFunctions } from '../../infra/local/local-functions.ts';
import { createLocalServer } from '../../infra/local/local-server.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { originSecretHeader } from '../../shared/http/origin-check.ts';
import { routeTable } from '../../shared/http/route-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { samplePath } from '../support/route-samples.ts';
import { AdminClient, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

/**
 * The functions' origin check (shared/http/origin-check.ts), driven through the real local host configured as the
 * stack configures a function: GATEWAY_ORIGIN_SECRET_IDS names two secrets (the slots), and a request must carry
 * the value of one of them, as CloudFront adds it. Without that setting (`npm start`, every other test) nothing is
 * checked.
 */
const slotIds = ['origin/slot-a', 'origin/slot-b'];
const slotA = 'origin-secret-value-a-0123456789abcdef';
let slotB = 'origin-secret-value-b-fedcba9876543210';

let upstream: FakeUpstream;
let gateway: TestGateway;
let admin: AdminClient;
let memberKey: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway({ environment: { GATEWAY_ORIGIN_SECRET_IDS: slotIds.join(',') } });
  await gateway.host.services.secrets.write('origin/slot-a', slotA);
  await gateway.host.services.secrets.write('origin/slot-b', slotB);
  admin = new AdminClient(gateway.url, gateway.adminKey, { [originSecretHeader]: slotA });
  await admin.createConnection({
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['m'],
  });
  ({ key: memberKey } = await admin.createMemberWithKey({ dailyTokens: 1_000_000 }));
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => upstream.reset());

/** A request as a client would send it to each route, with or without a given origin header. */
async function callRoute(
  url: string,
  route: (typeof routeTable)[number],
  origin: string | undefined,
): Promise<{ status: number; body: string }> {
  const path = samplePath(route, 'openai/m');
  const response = await fetch(`${url}${path}`, {
    method: route.method,
    headers: {
      authorization: `Bearer ${memberKey}`,
      'content-type': 'application/json',
      ...(origin === undefined ? {} : { [originSecretHeader]: origin }),
    },
    ...(route.method === 'POST' ? { body: '{"model":"openai/m","messages":[{"role":"user","content":"hi"}]}' } : {}),
  });
  return { status: response.status, body: await response.text() };
}

describe('the origin check', () => {
  it.each(routeTable)('refuses $method $path without the header: 403 origin_refused', async (route) => {
    const answer = await callRoute(gateway.url, route, undefined);
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('origin_refused');
  });

  it('refuses a wrong value, an empty one, one that differs in its last character, and the secret id', async () => {
    const chat = routeTable.find((route) => route.id === 'chat-completions');
    if (!chat) throw new Error('no chat route');
    for (const value of ['', 'x', `${slotA.slice(0, -1)}X`, `${slotA}${slotA}`, slotIds[0] ?? '']) {
      expect((await callRoute(gateway.url, chat, value)).status, JSON.stringify(value)).toBe(403);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers each wire in its own envelope', async () => {
    const messages = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' });
    expect(await messages.json()).toMatchObject({ type: 'error', error: { code: 'origin_refused' } });
    const gemini = await fetch(`${gateway.url}/v1beta/models/openai/m:generateContent`, { method: 'POST', body: '{}' });
    expect(await gemini.json()).toMatchObject({
      error: { code: 403, status: 'PERMISSION_DENIED', reason: 'origin_refused' },
    });
    const unknown = await fetch(`${gateway.url}/v2/anything`);
    expect(unknown.status).toBe(403);
  });

  it('lets the value of either slot through, and never sends the header upstream', async () => {
    const chat = routeTable.find((route) => route.id === 'chat-completions');
    if (!chat) throw new Error('no chat route');
    for (const value of [slotA, slotB]) {
      const answer = await callRoute(gateway.url, chat, value);
      expect(answer.status, answer.body).toBe(200);
    }
    expect(upstream.requests).toHaveLength(2);
    for (const request of upstream.requests) {
      expect(JSON.stringify(request.headers)).not.toContain(originSecretHeader);
      expect(JSON.stringify(request.headers)).not.toContain(slotA);
    }
  });

  it('rotates without a refused request: a new value in the idle slot works at once, the old one stops', async () => {
    const models = routeTable.find((route) => route.id === 'models');
    if (!models) throw new Error('no models route');
    const oldB = slotB;
    slotB = 'origin-secret-value-b-rotated-00000000';
    await gateway.host.services.secrets.write('origin/slot-b', slotB);
    expect((await callRoute(gateway.url, models, slotA)).status).toBe(200);
    expect((await callRoute(gateway.url, models, slotB)).status).toBe(200);
    expect((await callRoute(gateway.url, models, oldB)).status).toBe(403);
  });
});

describe('before any store access', () => {
  let server: Server;
  let url: string;
  const touched = new Set<string>();

  beforeAll(async () => {
    // The same functions, handed services that record every part anything reaches for.
    const services = gateway.host.services;
    const watched = new Proxy(services, {
      get(target, property, receiver) {
        touched.add(String(property));
        return Reflect.get(target, property, receiver) as unknown;
      },
    }) as GatewayServices;
    server = createLocalServer(watched, await loadLocalFunctions());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.close();
  });

  it('refuses every route having read only the configuration and the origin secrets', async () => {
    touched.clear();
    for (const route of routeTable) {
      for (const origin of [undefined, 'guess']) expect((await callRoute(url, route, origin)).status).toBe(403);
    }
    expect([...touched].toSorted()).toEqual(['config', 'secrets']);
  });

  it('reaches the store once the header is right (so the watch above can see it)', async () => {
    touched.clear();
    const models = routeTable.find((route) => route.id === 'models');
    if (!models) throw new Error('no models route');
    expect((await callRoute(url, models, slotA)).status).toBe(200);
    expect(touched.size).toBeGreaterThan(2);
  });
});
