import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenCountSourceHeader } from '../../shared/http/token-count-source.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement } from '../support/usage-records.ts';

const fixture = useGatewayFixture({
  connections: [
    { provider: 'anthropic', wire: 'anthropic-messages', models: ['claude-test'], apiKey: 'provider-secret' },
    { provider: 'openai', wire: 'openai-chat', models: ['gpt-test'] },
  ],
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'hello there' }];

async function clientFor(policy: { rpm?: number; providers?: string[] } = {}) {
  const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, ...policy });
  return { memberId, client: anthropicClient(gateway, key) };
}

describe('POST /v1/messages/count_tokens with the official @anthropic-ai/sdk', () => {
  it("answers with the messages connection's own count, passing the request through", async () => {
    const { client } = await clientFor();
    const count = await client.messages.countTokens({
      model: 'anthropic/claude-test',
      system: 'be brief',
      messages: hello,
    });
    expect(count.input_tokens).toBe(17);
    const { response } = await client.messages
      .countTokens({ model: 'anthropic/claude-test', messages: hello })
      .withResponse();
    expect(response.headers.get(tokenCountSourceHeader)).toBe('upstream');

    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(sent.headers['x-api-key']).toBe('provider-secret');
    expect(sent.json).toEqual({ model: 'claude-test', system: 'be brief', messages: hello });
  });

  it('is not an inference: it reserves nothing, takes no RPM slot and writes no usage record', async () => {
    const { client, memberId } = await clientFor({ rpm: 1 });
    const recordsBefore = (await allRecords(gateway.host.services)).length;
    for (let attempt = 0; attempt < 3; attempt++) {
      await client.messages.countTokens({ model: 'claude-test', messages: hello });
    }
    expect((await allRecords(gateway.host.services)).length).toBe(recordsBefore);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member).toMatchObject({ minutes: {}, tokenDays: {}, leases: {} });

    // Counts left the member's one request a minute free for an inference.
    await client.messages.create({ model: 'claude-test', max_tokens: 10, messages: hello });
    expect(Object.values((await memberAfterSettlement(gateway.host.services, memberId)).minutes)).toEqual([1]);
  });

  it("answers the gateway's estimate for a model on a chat connection, without calling it", async () => {
    const { client } = await clientFor();
    const { data, response } = await client.messages
      .countTokens({ model: 'openai/gpt-test', messages: hello, system: 'Be brief.' })
      .withResponse();
    expect(response.headers.get(tokenCountSourceHeader)).toBe('estimate');
    // "hello there" and "Be brief." are a few tokens each; the estimate counts text, not structure.
    expect(data.input_tokens).toBeGreaterThanOrEqual(4);
    expect(data.input_tokens).toBeLessThan(20);
    expect(upstream.requests).toHaveLength(0);
  });

  it('authenticates and authorizes like an inference', async () => {
    const denied = await (await clientFor({ providers: ['openai'] })).client.messages
      .countTokens({ model: 'claude-test', messages: hello })
      .catch((caught: unknown) => caught);
    expect(denied).toBeInstanceOf(Anthropic.PermissionDeniedError);

    const unknownKey = new Anthropic({ apiKey: 'sk-gw-not-a-key', baseURL: gateway.url, maxRetries: 0 });
    const unauthorized = await unknownKey.messages
      .countTokens({ model: 'claude-test', messages: hello })
      .catch((caught: unknown) => caught);
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(upstream.requests).toHaveLength(0);
  });

  it("keeps the upstream's status when the count itself fails", async () => {
    const { client } = await clientFor();
    upstream.nextResponse({ type: 'error', status: 400, message: 'messages: at least one message is required' });
    const refused = await client.messages
      .countTokens({ model: 'claude-test', messages: hello })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('at least one message') });
  });
});
