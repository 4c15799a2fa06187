import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

// Each chunk comes well within the time-out, but the whole stream takes longer than the request deadline.
const fixture = useGatewayFixture({
  environment: { GATEWAY_MAX_REQUEST_MS: '800', GATEWAY_UPSTREAM_TIMEOUT_MS: '5000' },
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
