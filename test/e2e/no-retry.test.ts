import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { refusal } from '../support/openai-refusal.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * Spec §4.3 rule 5: no implicit retry and no cross-provider fallback. A model with two connections must not try
 * the second when the first fails, and a provider whose connection is down must not be served by another
 * provider that has a model of the same name.
 */
const fixture = useGatewayFixture({
  connections: [
    ...['pair-1', 'pair-2'].map((path) => ({
      provider: 'openai',
      wire: 'openai-chat' as const,
      path: `/${path}/v1`,
      models: ['pair-model'],
    })),
    // Provider X cannot be reached; provider Y serves a model of the same name.
    { provider: 'xdown', wire: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', models: ['split-model'] },
    { provider: 'yup', wire: 'openai-chat', path: '/y/v1', models: ['split-model'] },
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  client = openaiClient(gateway, fixture.member.key);
});

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('one upstream request per client request (spec §4.3 rule 5)', () => {
  it('relays an upstream 500 after exactly one upstream request, though a second connection serves the model', async () => {
    upstream.nextResponse({ type: 'error', status: 500, message: 'upstream broke' });
    const error = await client.chat.completions.create({ model: 'pair-model', messages }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 500 });
    expect(upstream.requests).toHaveLength(1);
    const record = await settledRecord(
      gateway.host.services,
      (error as InstanceType<typeof OpenAI.APIError>).requestID!,
    );
    expect(record).toMatchObject({ status: 500, state: 'failed' });
  });

  it('answers 502 after exactly one upstream request when the upstream drops the connection before answering', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 0 });
    expect(await refusal(client.chat.completions.create({ model: 'pair-model', messages }))).toEqual({
      status: 502,
      code: 'upstream_unreachable',
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it('answers 502 after exactly one upstream request when the upstream drops the connection mid-body', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 1 });
    expect((await refusal(client.chat.completions.create({ model: 'pair-model', messages }))).status).toBe(502);
    expect(upstream.requests).toHaveLength(1);
  });

  it('ends a stream the upstream drops with an error, after exactly one upstream request', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 2, textChunks: ['a ', 'b ', 'c'] });
    const stream = await client.chat.completions.create({ model: 'pair-model', messages, stream: true });
    await expect(async () => {
      for await (const _chunk of stream) {
        // drain
      }
    }).rejects.toThrow(/interrupted/);
    expect(upstream.requests).toHaveLength(1);
  });

  it('never falls back to another provider: X unreachable is a 502 each time, and Y is never called', async () => {
    for (let request = 0; request < 4; request++) {
      expect(await refusal(client.chat.completions.create({ model: 'xdown/split-model', messages }))).toEqual({
        status: 502,
        code: 'upstream_unreachable',
      });
    }
    expect(upstream.requests).toHaveLength(0);
    // Y itself is up: its own requests are served by its own connection.
    await client.chat.completions.create({ model: 'yup/split-model', messages });
    expect(upstream.requests.map((request) => request.path)).toEqual(['/y/v1/chat/completions']);
  });
});
