import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/observability/logger.ts';
import type { FakeUpstream, FakeUsage } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, useGatewayFixture } from '../support/gateway-fixture.ts';
import { postJson, type TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * Usage is validated before it is charged: counts that are not non-negative safe integers, or parts larger than
 * their whole, are treated as not reported — the reservation stays the charge — and logged with the request id.
 */
const fixture = useGatewayFixture({
  connections: acmeOnEveryWire,
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const post = (key: string, path: string, body: Record<string, unknown>) => postJson(gateway, key, path, body);

const chatBody = { model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] };

describe('usage that cannot be charged', () => {
  it('prompt_tokens -1,000,000 and completion_tokens 0.5: the reservation is charged and no allowance is credited', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 10_000 });
    const warnings = vi.spyOn(logger, 'warn');
    upstream.nextResponse({
      type: 'answer',
      usage: { inputTokens: -1_000_000, cachedInputTokens: 0, outputTokens: 0.5 },
    });
    const response = await post(key, '/v1/chat/completions', chatBody);
    expect(response.status).toBe(200);
    await response.text();
    const requestId = response.headers.get('x-request-id')!;
    const record = await settledRecord(gateway.host.services, requestId);
    expect(record).toMatchObject({
      state: 'completed',
      source: 'conservative',
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: null,
    });
    expect(record.charge).toBe(record.reserved);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.tokenDays[record.day]).toBe(record.reserved);
    expect(warnings).toHaveBeenCalledWith(
      expect.stringContaining('usage'),
      expect.objectContaining({ requestId, problem: expect.stringContaining('prompt_tokens') }),
    );

    // The allowance was not credited: a request that needs 9,000 of the 10,000 no longer fits.
    const big = await post(key, '/v1/chat/completions', { ...chatBody, max_tokens: 9_000 });
    expect(big.status).toBe(429);
    expect(await big.text()).toContain('token_reservation_limit');
  });

  const cases: { name: string; path: string; body: Record<string, unknown>; usage: FakeUsage; field: string }[] = [
    {
      name: 'chat: cached tokens above the prompt',
      path: '/v1/chat/completions',
      body: chatBody,
      usage: { inputTokens: 10, cachedInputTokens: 50, outputTokens: 5 },
      field: 'cached_tokens',
    },
    {
      name: 'chat: a count beyond the safe integers',
      path: '/v1/chat/completions',
      body: { ...chatBody, stream: true },
      usage: { inputTokens: 2 ** 60, cachedInputTokens: 0, outputTokens: 5 },
      field: 'prompt_tokens',
    },
    {
      name: 'responses: negative output',
      path: '/v1/responses',
      body: { model: 'acme/acme-r', input: 'hi' },
      usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: -3 },
      field: 'output_tokens',
    },
    {
      name: 'messages: a negative input count that the cache reads would hide',
      path: '/v1/messages',
      body: { model: 'acme/acme-m', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
      // Rendered as input_tokens -40 and cache_read_input_tokens 50: together a plausible 10.
      usage: { inputTokens: 10, cachedInputTokens: 50, outputTokens: 5 },
      field: 'input_tokens',
    },
    {
      name: 'messages, streamed: fractional output',
      path: '/v1/messages',
      body: { model: 'acme/acme-m', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 2.5 },
      field: 'output_tokens',
    },
    {
      name: 'generate-content: cached content above the prompt',
      path: '/v1beta/models/acme/acme-g:generateContent',
      body: { contents: [{ parts: [{ text: 'hi' }] }] },
      usage: { inputTokens: 10, cachedInputTokens: 20, outputTokens: 5 },
      field: 'cachedContentTokenCount',
    },
  ];

  for (const { name, path, body, usage, field } of cases) {
    it(name, async () => {
      const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
      const warnings = vi.spyOn(logger, 'warn');
      upstream.nextResponse({ type: 'answer', usage });
      const response = await post(key, path, body);
      expect(response.status).toBe(200);
      await response.text();
      const requestId = response.headers.get('x-request-id')!;
      const record = await settledRecord(gateway.host.services, requestId);
      expect(record).toMatchObject({ source: 'conservative', inputTokens: null, outputTokens: null });
      expect(record.charge).toBe(record.reserved);
      expect((await memberAfterSettlement(gateway.host.services, memberId)).tokenDays[record.day]).toBe(
        record.reserved,
      );
      expect(warnings).toHaveBeenCalledWith(
        expect.stringContaining('usage'),
        expect.objectContaining({ requestId, problem: expect.stringContaining(field) }),
      );
    });
  }
});
