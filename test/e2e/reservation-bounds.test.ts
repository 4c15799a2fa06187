import { beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../../shared/accounting/estimate-input-tokens.ts';
import { mostAllowedUsage, unboundedOutputTokens } from '../support/fake-upstream/most-allowed-usage.ts';
import { openAiChatWire } from '../support/fake-upstream/openai-chat.ts';
import { createStreamGate, type FakeUpstream } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { type MemberPolicy, postJson, type TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * The reservation is an upper bound of what the upstream may produce: the output allowance goes upstream as each
 * wire's own cap, and `n` / `candidateCount` multiply it. The fake upstream here bills the most its request allows
 * (`usage: 'most-allowed'`): every answer as long as the cap it received, 50,000 tokens each without one.
 */
const fixture = useGatewayFixture({
  connections: [...acmeOnEveryWire, ...alphaRoutes],
});
let upstream: FakeUpstream;
let gateway: TestGateway;

/** GATEWAY_DEFAULT_OUTPUT_CAP when the environment sets none. */
const defaultOutputCap = 4096;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

async function freshMember(policy: MemberPolicy = { dailyTokens: 1_000_000 }) {
  return gateway.admin.createMemberWithKey(policy);
}

const post = (key: string, path: string, body: Record<string, unknown>) => postJson(gateway, key, path, body);

const hello = [{ role: 'user', content: 'Write as much as you may.' }];

describe('n multiplies the output allowance', () => {
  it('50 concurrent {max_tokens: 500, n: 64} chat requests under 10,000 tokens a day: none fits, nothing is overspent', async () => {
    const { memberId, key } = await freshMember({ dailyTokens: 10_000 });
    upstream.setScenario(() => ({ type: 'answer', usage: 'most-allowed' }));
    const body = { model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 500, n: 64 };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(key, '/v1/chat/completions', body)));
    const statuses = await Promise.all(
      responses.map(async (response) => ({ status: response.status, body: await response.text() })),
    );
    // Each would reserve 64 answers of 500 tokens: more than the whole day allows.
    expect(statuses.filter((answer) => answer.status === 200)).toHaveLength(0);
    expect(statuses.every((answer) => answer.body.includes('token_reservation_limit'))).toBe(true);
    expect(upstream.requests).toHaveLength(0);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(Object.values(member.tokenDays).reduce((sum, tokens) => sum + tokens, 0)).toBe(0);
  });

  it('admits {max_tokens: 500, n: 4} while 4 answers fit, and charges no admitted request more than it reserved', async () => {
    const { memberId, key } = await freshMember({ dailyTokens: 10_000 });
    upstream.setScenario(() => ({ type: 'answer', usage: 'most-allowed' }));
    const body = { model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 500, n: 4 };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(key, '/v1/chat/completions', body)));
    await Promise.all(responses.map((response) => response.text()));
    const admitted = responses.filter((response) => response.status === 200);
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.length).toBeLessThanOrEqual(Math.floor(10_000 / (estimateInputTokens(body) + 4 * 500)));
    for (const response of admitted) {
      const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
      expect(record.reserved).toBe(estimateInputTokens(body) + 4 * 500);
      expect(record).toMatchObject({ source: 'measured', outputTokens: 2_000 });
      expect(record.charge).toBeLessThanOrEqual(record.reserved);
    }
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(Object.values(member.tokenDays).reduce((sum, tokens) => sum + tokens, 0)).toBeLessThanOrEqual(10_000);
  });

  it('candidateCount multiplies it on generate-content', async () => {
    const { key } = await freshMember();
    upstream.nextResponse({ type: 'answer', usage: 'most-allowed' });
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: { candidateCount: 3, maxOutputTokens: 200 },
    };
    const response = await post(key, '/v1beta/models/acme/acme-g:generateContent', body);
    expect(response.status).toBe(200);
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record.reserved).toBe(estimateInputTokens(body) + 3 * 200);
    expect(record).toMatchObject({ source: 'measured', outputTokens: 600 });
  });
});

describe('the output allowance goes upstream as the wire`s own cap', () => {
  it('a stream without max_tokens, cancelled after its finish chunk: the upstream could bill no more than the charge', async () => {
    const { key } = await freshMember();
    // Role, two words and the finish chunk go out; the usage chunk (the gateway asks for it) is held back.
    const gate = createStreamGate({ initiallyReleased: 4 });
    upstream.nextResponse({ type: 'answer', usage: 'most-allowed', textChunks: ['one', ' two'], gate });
    const response = await post(key, '/v1/chat/completions', { model: 'acme/acme-1', messages: hello, stream: true });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = '';
    while (!received.includes('"finish_reason":"stop"')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value;
    }
    await reader.cancel();
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ source: 'conservative' });
    const sent = upstream.requests[0]!.json as Record<string, unknown>;
    expect(sent.max_tokens).toBe(defaultOutputCap);
    // What the provider bills for what it was asked, whether or not the client read it.
    const billed = mostAllowedUsage(openAiChatWire, sent);
    expect(billed.outputTokens).toBeLessThan(unboundedOutputTokens);
    expect(billed.inputTokens + billed.outputTokens).toBeLessThanOrEqual(record.charge);
  });

  const cases: {
    name: string;
    path: string;
    body: Record<string, unknown>;
    policy?: MemberPolicy;
    /** The output tokens one answer may produce: what the upstream must receive, and what it then bills. */
    cap: number;
    /** Where the cap is in the body the upstream received, and what must be there. */
    sent: (body: Record<string, unknown>) => unknown;
    want: unknown;
  }[] = [
    {
      name: 'chat without a cap: max_tokens, the field every compatible engine reads',
      path: '/v1/chat/completions',
      body: { model: 'acme/acme-1', messages: hello },
      cap: defaultOutputCap,
      sent: (body) => [body.max_tokens, body.max_completion_tokens],
      want: [defaultOutputCap, undefined],
    },
    {
      // Ollama, LM Studio, DeepSeek- and GLM-type APIs ignore max_completion_tokens: the fake upstream does too.
      name: 'chat with max_completion_tokens: that field is kept, and max_tokens, which every compatible engine reads, holds the same',
      path: '/v1/chat/completions',
      body: { model: 'acme/acme-1', messages: hello, max_completion_tokens: 300 },
      cap: 300,
      sent: (body) => [body.max_completion_tokens, body.max_tokens],
      want: [300, 300],
    },
    {
      name: 'chat under the member`s maxOutput',
      path: '/v1/chat/completions',
      body: { model: 'acme/acme-1', messages: hello },
      policy: { dailyTokens: 1_000_000, maxOutput: 700 },
      cap: 700,
      sent: (body) => body.max_tokens,
      want: 700,
    },
    {
      name: 'responses: max_output_tokens',
      path: '/v1/responses',
      body: { model: 'acme/acme-r', input: 'Write as much as you may.' },
      cap: defaultOutputCap,
      sent: (body) => body.max_output_tokens,
      want: defaultOutputCap,
    },
    {
      name: 'messages: max_tokens',
      path: '/v1/messages',
      body: { model: 'acme/acme-m', messages: hello },
      cap: defaultOutputCap,
      sent: (body) => body.max_tokens,
      want: defaultOutputCap,
    },
    {
      name: 'generate-content: generationConfig.maxOutputTokens, beside the client`s other settings',
      path: '/v1beta/models/acme/acme-g:generateContent',
      body: { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { temperature: 0.5 } },
      cap: defaultOutputCap,
      sent: (body) => body.generationConfig,
      want: { temperature: 0.5, maxOutputTokens: defaultOutputCap },
    },
    {
      name: 'generate-content in snake_case: capped in the spelling the client used',
      path: '/v1beta/models/acme/acme-g:generateContent',
      body: { contents: [{ parts: [{ text: 'hi' }] }], generation_config: { max_output_tokens: 700 } },
      policy: { dailyTokens: 1_000_000, maxOutput: 800 },
      cap: 700,
      sent: (body) => [body.generation_config, body.generationConfig],
      want: [{ max_output_tokens: 700 }, undefined],
    },
    {
      name: 'responses on K3, translated to chat',
      path: '/v1/responses',
      body: { model: 'alpha-k3', input: 'Write as much as you may.' },
      cap: defaultOutputCap,
      sent: (body) => body.max_tokens,
      want: defaultOutputCap,
    },
    {
      name: 'responses on K2.7, translated to chat and on to messages',
      path: '/v1/responses',
      body: { model: 'alpha-k2.7-code', input: 'Write as much as you may.' },
      cap: defaultOutputCap,
      sent: (body) => body.max_tokens,
      want: defaultOutputCap,
    },
    {
      name: 'chat on K2.7, translated to messages',
      path: '/v1/chat/completions',
      body: { model: 'alpha-k2.7-code', messages: hello },
      policy: { dailyTokens: 1_000_000, maxOutput: 3_000 },
      cap: 3_000,
      sent: (body) => body.max_tokens,
      want: 3_000,
    },
  ];

  for (const { name, path, body, policy, cap, sent, want } of cases) {
    it(name, async () => {
      const { key } = await freshMember(policy);
      upstream.nextResponse({ type: 'answer', usage: 'most-allowed' });
      const response = await post(key, path, body);
      const text = await response.text();
      expect(response.status, text).toBe(200);
      expect(sent(upstream.requests[0]!.json as Record<string, unknown>)).toEqual(want);
      const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
      expect(record).toMatchObject({ source: 'measured', outputTokens: cap });
      expect(record.charge).toBeLessThanOrEqual(record.reserved);
    });
  }

  it('leaves no request of these tests charged above its reservation', async () => {
    for (const record of await allRecords(gateway.host.services)) {
      if (record.state !== 'running') expect(record.charge).toBeLessThanOrEqual(record.reserved);
    }
  });
});

describe('a request asks for no more than any model can produce', () => {
  const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
  /** Each beyond the largest output cap (a 32-bit integer) or the most answers (128) a request may ask for. */
  const beyond: { name: string; path: string; body: Record<string, unknown>; field: string }[] = [
    {
      name: 'chat n of 2^53 − 1',
      path: '/v1/chat/completions',
      body: { model: 'acme/acme-1', messages: hello, n: Number.MAX_SAFE_INTEGER, max_tokens: 32_768 },
      field: 'n',
    },
    {
      name: 'chat n of 129',
      path: '/v1/chat/completions',
      body: { model: 'acme/acme-1', messages: hello, n: 129 },
      field: 'n',
    },
    {
      name: 'chat max_tokens of 2^53 − 1',
      path: '/v1/chat/completions',
      body: { model: 'acme/acme-1', messages: hello, max_tokens: Number.MAX_SAFE_INTEGER },
      field: 'max_tokens',
    },
    {
      name: 'chat max_completion_tokens of 2^31',
      path: '/v1/chat/completions',
      body: { model: 'acme/acme-1', messages: hello, max_completion_tokens: 2 ** 31 },
      field: 'max_completion_tokens',
    },
    {
      name: 'Responses max_output_tokens of 2^31',
      path: '/v1/responses',
      body: { model: 'acme/acme-r', input: 'hi', max_output_tokens: 2 ** 31 },
      field: 'max_output_tokens',
    },
    {
      name: 'messages max_tokens of 2^31',
      path: '/v1/messages',
      body: { model: 'acme/acme-m', messages: hello, max_tokens: 2 ** 31 },
      field: 'max_tokens',
    },
    {
      name: 'generate-content candidateCount of 2^53 − 1',
      path: '/v1beta/models/acme/acme-g:generateContent',
      body: { contents, generationConfig: { candidateCount: Number.MAX_SAFE_INTEGER } },
      field: 'candidateCount',
    },
    {
      name: 'generate-content max_output_tokens of 2^31',
      path: '/v1beta/models/acme/acme-g:streamGenerateContent?alt=sse',
      body: { contents, generation_config: { max_output_tokens: 2 ** 31 } },
      field: 'max_output_tokens',
    },
  ];

  for (const { name, path, body, field } of beyond) {
    it(`refuses ${name} with 400 before anything is reserved, even without a daily allowance`, async () => {
      // Admitted, each would have stored a reservation beyond the safe integers (10^20 tokens for n of 2^53 − 1):
      // the charge of the request if no usage came, and a day's total that no longer adds up.
      const { memberId, key } = await freshMember({});
      const response = await post(key, path, body);
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(text).toContain('invalid_request');
      expect(text).toContain(field);
      expect(upstream.requests).toHaveLength(0);
      const member = await memberAfterSettlement(gateway.host.services, memberId);
      expect(Object.values(member.tokenDays).reduce((sum, tokens) => sum + tokens, 0)).toBe(0);
    });
  }

  it('admits the most a request may ask for, and reserves it as a safe integer', async () => {
    const { key } = await freshMember({});
    upstream.nextResponse({ type: 'answer', usage: 'omit' });
    const body = { model: 'acme/acme-1', messages: hello, n: 128, max_tokens: 2 ** 31 - 1 };
    const response = await post(key, '/v1/chat/completions', body);
    expect(response.status, await response.text()).toBe(200);
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record.reserved).toBe(estimateInputTokens(body) + 128 * (2 ** 31 - 1));
    expect(Number.isSafeInteger(record.reserved)).toBe(true);
    expect(record).toMatchObject({ source: 'conservative', charge: record.reserved });
  });
});
