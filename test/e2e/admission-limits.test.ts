import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { createStreamGate, type FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { MemberPolicy, TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement } from '../support/usage-records.ts';

/** Spec §7: request-rate and concurrency limits answer 429, which the official SDK surfaces as RateLimitError. */
const fixture = useGatewayFixture({
  connections: [{ provider: 'openai', wire: 'openai-chat', models: ['limited-model'] }],
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

const messages = [{ role: 'user' as const, content: 'hi' }];
const sdk = (apiKey: string) => openaiClient(gateway, apiKey);
const ask = (client: OpenAI) => client.chat.completions.create({ model: 'limited-model', messages });

/** The error a call ends with; fails the test when the call succeeds. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the request was not refused');
}

/** Holds the gateway's clock on one instant, so every request of a test falls in the same UTC minute. */
async function withinOneMinute(test: () => Promise<void>): Promise<void> {
  const services = gateway.host.services;
  const realNow = services.now;
  const instant = services.now();
  services.now = () => instant;
  try {
    await test();
  } finally {
    services.now = realNow;
  }
}

async function memberWithKeys(policy: MemberPolicy, keyPolicies: MemberPolicy[]) {
  const memberId = await gateway.admin.createMember(policy);
  const keys = [];
  for (const keyPolicy of keyPolicies) keys.push((await gateway.admin.createKey(memberId, { policy: keyPolicy })).key);
  return { memberId, keys };
}

describe('request rate (rpm)', () => {
  it('refuses a member`s second request in a minute with RateLimitError 429 rate_limit, whichever key sends it', async () => {
    const { keys } = await memberWithKeys({ rpm: 1 }, [{}, {}]);
    await withinOneMinute(async () => {
      await expect(ask(sdk(keys[0]!))).resolves.toBeDefined();
      for (const key of keys) {
        const error = await failureOf(ask(sdk(key)));
        expect(error).toBeInstanceOf(OpenAI.RateLimitError);
        expect(error).toMatchObject({ status: 429, code: 'rate_limit' });
        expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('1');
      }
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it('counts a key`s rpm for that key alone', async () => {
    // Two keys of one member, each with rpm 1: each gets its own one request this minute.
    const { keys } = await memberWithKeys({}, [{ rpm: 1 }, { rpm: 1 }]);
    await withinOneMinute(async () => {
      await ask(sdk(keys[0]!));
      const error = await failureOf(ask(sdk(keys[0]!)));
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limit' });
      await expect(ask(sdk(keys[1]!))).resolves.toBeDefined();
      expect(await failureOf(ask(sdk(keys[1]!)))).toMatchObject({ status: 429, code: 'rate_limit' });
    });
    expect(upstream.requests).toHaveLength(2);
  });
});

describe('concurrency', () => {
  it('refuses a second request while a stream is open with 429 concurrency_limit, and admits one after it ends', async () => {
    const { memberId, keys } = await memberWithKeys({ concurrency: 1 }, [{}]);
    const client = sdk(keys[0]!);
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate, textChunks: ['held ', 'open'] });
    const stream = await client.chat.completions.create({ model: 'limited-model', messages, stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    expect(upstream.requests[0]?.outcome).toBe('pending');

    const error = await failureOf(ask(client));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'concurrency_limit' });
    expect(upstream.requests).toHaveLength(1);

    gate.releaseAll();
    let text = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      text += next.value.choices[0]?.delta.content ?? '';
    }
    expect(text).toContain('open');
    // The lease goes at settlement, which runs once the response has ended.
    expect((await memberAfterSettlement(gateway.host.services, memberId)).leases).toEqual({});
    const third = await ask(client);
    expect(third.choices[0]?.message.content).toBe('echo: hi');
    expect(upstream.requests).toHaveLength(2);
  });

  it('applies a key`s concurrency to that key alone', async () => {
    const { keys } = await memberWithKeys({}, [{ concurrency: 1 }, {}]);
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate });
    const stream = await sdk(keys[0]!).chat.completions.create({ model: 'limited-model', messages, stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    expect(await failureOf(ask(sdk(keys[0]!)))).toMatchObject({ status: 429, code: 'concurrency_limit' });
    await expect(ask(sdk(keys[1]!))).resolves.toBeDefined();
    gate.releaseAll();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      // drain
    }
  });
});
