import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  // Each chunk comes well within the time-out, but the whole stream takes longer than the request deadline.
  gateway = await startTestGateway({
    environment: { GATEWAY_MAX_REQUEST_MS: '800', GATEWAY_UPSTREAM_TIMEOUT_MS: '5000' },
  });
  await gateway.admin.createConnection({
    provider: 'acme',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['slow'],
  });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

describe('the request deadline', () => {
  it('cuts a stream that outlives it, charges the reservation and releases the lease before the lease can expire', async () => {
    expect(gateway.host.services.config.leaseTtlMs).toBeGreaterThan(gateway.host.services.config.maxRequestMs);
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    upstream.nextResponse({
      type: 'answer',
      delayBetweenChunksMilliseconds: 200,
      textChunks: Array.from({ length: 20 }, (_, index) => `part${index} `),
    });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'acme/slow', messages: [{ role: 'user', content: 'take your time' }], stream: true })
      .withResponse();
    let text = '';
    await expect(async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    }).rejects.toThrow(/stopped sending/);
    expect(text).toContain('part0');
    expect(text).not.toContain('part19');
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
    expect(record.charge).toBe(record.reserved);
    expect((await memberAfterSettlement(gateway.host.services, memberId)).leases).toEqual({});
    expect((await upstream.waitForClientClose(0)).clientClosedEarly).toBe(true);
  });
});
