import { beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../../shared/accounting/estimate-input-tokens.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { refusal } from '../support/openai-refusal.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { MemberPolicy, TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * Spec §8 accounting rules 1-4, end to end: what admission reserves, what settlement charges and what the
 * member's day is left holding, for replies with, without and beyond the usage the estimate expected.
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'openai', wire: 'openai-chat', models: ['acct-model'] },
    { provider: 'openai', wire: 'openai-responses', models: ['acct-responses'] },
    { provider: 'beta', wire: 'openai-chat', upstream: 'beta' },
  ],
});
let upstream: FakeUpstream;
let gateway: TestGateway;

/** GATEWAY_DEFAULT_OUTPUT_CAP when the environment sets none. */
const defaultOutputCap = 4096;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

/** A member of its own per test, so its day's allowance holds only what that test spent. */
async function freshMember(policy: MemberPolicy = { dailyTokens: 1_000_000 }, keyPolicy: MemberPolicy = {}) {
  const { memberId, key } = await gateway.admin.createMemberWithKey(policy, keyPolicy);
  return { memberId, key, client: openaiClient(gateway, key) };
}

/** Sends exactly this body, so a test can price the very body the gateway parses. */
function post(key: string, body: Record<string, unknown>, path = '/chat/completions') {
  return fetch(`${gateway.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const hello = [{ role: 'user' as const, content: 'hello there' }];

describe('rule 2: a completed reply without usage keeps the reservation as the charge', () => {
  it('plain chat: conservative record, charge = reserved, and the member`s day holds the reservation', async () => {
    const { memberId, client } = await freshMember();
    upstream.nextResponse({ type: 'answer', usage: 'omit' });
    const { data, response } = await client.chat.completions
      .create({ model: 'openai/acct-model', messages: hello })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('echo: hello there');
    expect(data.usage).toBeUndefined();

    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      state: 'completed',
      status: 200,
      source: 'conservative',
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: null,
    });
    expect(record.reserved).toBeGreaterThan(defaultOutputCap);
    expect(record.state === 'completed' && record.charge).toBe(record.reserved);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.tokenDays[record.day]).toBe(record.reserved);
    expect(member.leases).toEqual({});
  });

  it('streamed chat: the stream ends normally without a usage chunk, and the reservation is the charge', async () => {
    const { memberId, client } = await freshMember();
    upstream.nextResponse({ type: 'answer', usage: 'omit' });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'acct-model', messages: hello, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    const usages: unknown[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usages.push(chunk.usage);
    }
    expect(text).toBe('echo: hello there');
    expect(usages).toEqual([]);

    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ state: 'completed', status: 200, stream: true, source: 'conservative' });
    expect(record.state === 'completed' && record.charge).toBe(record.reserved);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.tokenDays[record.day]).toBe(record.reserved);
  });
});

describe('rule 3: measured usage replaces the estimate, even above it', () => {
  it('charges 50,000 reported input tokens on a tiny prompt, and the member`s day holds the measured charge', async () => {
    const { memberId, client } = await freshMember();
    upstream.nextResponse({ type: 'answer', usage: { inputTokens: 50_000, cachedInputTokens: 0, outputTokens: 9 } });
    const { response } = await client.chat.completions
      .create({ model: 'acct-model', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ state: 'completed', source: 'measured', inputTokens: 50_000, outputTokens: 9 });
    expect(record.state === 'completed' && record.charge).toBe(50_009);
    expect(record.reserved).toBeLessThan(50_009);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.tokenDays[record.day]).toBe(50_009);
  });

  it('does the same for a streamed reply', async () => {
    const { memberId, client } = await freshMember();
    upstream.nextResponse({
      type: 'answer',
      usage: { inputTokens: 50_000, cachedInputTokens: 1_000, outputTokens: 9 },
    });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'acct-model', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .withResponse();
    for await (const _chunk of stream) {
      // drain
    }
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    // Cached input is part of input: it is not added again.
    expect(record).toMatchObject({ source: 'measured', cachedInputTokens: 1_000, charge: 50_009 });
    expect((await memberAfterSettlement(gateway.host.services, memberId)).tokenDays[record.day]).toBe(50_009);
  });
});

describe('rule 1: the reservation is the input estimate plus the capped output allowance', () => {
  const base = { model: 'openai/acct-model', messages: [{ role: 'user', content: 'Count the reserved tokens.' }] };
  const cases: {
    name: string;
    body: Record<string, unknown>;
    policy?: MemberPolicy;
    keyPolicy?: MemberPolicy;
    cap: number;
  }[] = [
    { name: 'no cap stated: the default', body: base, cap: defaultOutputCap },
    { name: 'max_tokens', body: { ...base, max_tokens: 100 }, cap: 100 },
    { name: 'max_tokens above the default', body: { ...base, max_tokens: 9_000 }, cap: 9_000 },
    {
      name: 'max_completion_tokens before max_tokens',
      body: { ...base, max_tokens: 200, max_completion_tokens: 64 },
      cap: 64,
    },
    { name: 'the member`s maxOutput', body: base, policy: { dailyTokens: 1_000_000, maxOutput: 50 }, cap: 50 },
    {
      name: 'the key`s maxOutput, below the member`s',
      body: base,
      policy: { dailyTokens: 1_000_000, maxOutput: 200 },
      keyPolicy: { maxOutput: 70 },
      cap: 70,
    },
    {
      name: 'max_tokens below the policy',
      body: { ...base, max_tokens: 30 },
      policy: { dailyTokens: 1_000_000, maxOutput: 200 },
      keyPolicy: { maxOutput: 70 },
      cap: 30,
    },
    {
      name: 'a member without a daily allowance',
      body: { ...base, max_tokens: 300 },
      policy: {},
      cap: 300,
    },
    { name: 'the model`s maximum output (Beta 4 31B)', body: { ...base, model: 'beta-4-31b' }, cap: 32_768 },
    {
      name: 'a request with tools (their overhead is part of the estimate)',
      body: {
        ...base,
        max_tokens: 10,
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      },
      cap: 10,
    },
  ];

  for (const { name, body, policy, keyPolicy, cap } of cases) {
    it(name, async () => {
      const { memberId, key } = await freshMember(policy, keyPolicy);
      upstream.nextResponse({ type: 'answer', usage: 'omit' });
      const response = await post(key, body);
      expect(response.status).toBe(200);
      const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
      expect(record.reserved).toBe(estimateInputTokens(body) + cap);
      // Without usage the reservation is what the day keeps (rule 2), so the member item shows it too.
      expect((await memberAfterSettlement(gateway.host.services, memberId)).tokenDays[record.day]).toBe(
        record.reserved,
      );
    });
  }

  it('refuses with 429 a request whose reservation alone exceeds the daily allowance, before the upstream', async () => {
    const body = { ...base, max_tokens: 1_000 };
    const { memberId, key } = await freshMember({ dailyTokens: estimateInputTokens(body) + 999 });
    const response = await post(key, body);
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ error: { code: 'token_reservation_limit' } });
    expect(upstream.requests).toHaveLength(0);
    expect((await memberAfterSettlement(gateway.host.services, memberId)).tokenDays).toEqual({});
  });
});

describe('rule 4: a finite allowance takes self-contained text only', () => {
  const remoteImage = [
    {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'What is in this picture?' },
        { type: 'image_url' as const, image_url: { url: 'https://example.com/cat.png' } },
      ],
    },
  ];

  it('refuses remote media and stored references with 400, calls no upstream and reserves nothing', async () => {
    const { memberId, client } = await freshMember({ dailyTokens: 1_000_000 });
    const before = await memberAfterSettlement(gateway.host.services, memberId);
    const recordsBefore = (await allRecords(gateway.host.services)).filter((record) => record.memberId === memberId);

    expect(await refusal(client.chat.completions.create({ model: 'acct-model', messages: remoteImage }))).toEqual({
      status: 400,
      code: 'remote_media_refused',
    });
    expect(
      await refusal(
        client.chat.completions.create({ model: 'acct-model', messages: remoteImage, stream: true }).then(() => {}),
      ),
    ).toEqual({ status: 400, code: 'remote_media_refused' });
    expect(
      await refusal(
        client.responses.create({ model: 'openai/acct-responses', input: 'and then?', previous_response_id: 'resp_1' }),
      ),
    ).toEqual({ status: 400, code: 'stored_reference_refused' });

    expect(upstream.requests).toHaveLength(0);
    const after = await memberAfterSettlement(gateway.host.services, memberId);
    expect(after.tokenDays).toEqual(before.tokenDays);
    expect(after.leases).toEqual({});
    const recordsAfter = (await allRecords(gateway.host.services)).filter((record) => record.memberId === memberId);
    expect(recordsAfter).toHaveLength(recordsBefore.length);
  });

  it('lets a member without a token allowance send the same remote image and previous_response_id', async () => {
    const { client } = await freshMember({});
    const completion = await client.chat.completions.create({ model: 'acct-model', messages: remoteImage });
    expect(completion.choices[0]?.message.content).toBe('echo: What is in this picture?');
    expect(upstream.requests[0]?.json).toMatchObject({ messages: remoteImage });

    await client.responses.create({ model: 'acct-responses', input: 'and then?', previous_response_id: 'resp_1' });
    expect(upstream.requests[1]?.json).toMatchObject({ previous_response_id: 'resp_1' });
    expect(upstream.requests).toHaveLength(2);
  });
});
