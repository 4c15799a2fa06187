import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { anthropicClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * The messages SDK sends its beta feature flags in `anthropic-beta`; a native messages call carries them to the
 * upstream (the body fields they unlock are refused without them). Nothing else of the client's headers goes.
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'anthropic', wire: 'anthropic-messages', models: ['claude-test'], apiKey: 'provider-secret' },
    // A catalog model served only by a messages upstream: a chat client's call to it is translated.
    { provider: 'alpha', wire: 'anthropic-messages', path: '/alpha/v1', upstream: 'alpha' },
  ],
  member: { dailyTokens: 1_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
});

const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'hello there' }];
const betas = ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'];
const anthropicWithHeaders = (headers: Record<string, string> = {}) =>
  anthropicClient(gateway, key, { defaultHeaders: headers });

describe('client headers that reach the upstream', () => {
  it('the SDK`s beta flags reach a messages upstream, with the provider credential and the pinned version', async () => {
    const message = await anthropicWithHeaders({ 'x-team-secret': 'not-for-upstream' }).beta.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: hello,
      betas,
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'echo: hello there' });
    const sent = upstream.requests[0]!;
    expect(sent.headers['anthropic-beta']).toBe(betas.join(','));
    expect(sent.headers['x-api-key']).toBe('provider-secret');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers['x-team-secret']).toBeUndefined();
    expect(sent.headers['authorization']).toBeUndefined();
  });

  it('streams with them too, and token counts carry them', async () => {
    const stream = anthropicWithHeaders().beta.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: hello,
      betas,
    });
    await stream.finalMessage();
    await anthropicWithHeaders().beta.messages.countTokens({ model: 'claude-test', messages: hello, betas });
    expect(upstream.requests.map((request) => [request.path, request.headers['anthropic-beta']])).toEqual([
      ['/v1/messages', betas.join(',')],
      // The SDK adds the counting flag of its own.
      ['/v1/messages/count_tokens', [...betas, 'token-counting-2024-11-01'].join(',')],
    ]);
  });

  it('a translated call forwards none: a chat client`s header names no messages feature', async () => {
    const chat = new OpenAI({
      apiKey: key,
      baseURL: gateway.baseURL,
      maxRetries: 0,
      defaultHeaders: { 'anthropic-beta': betas[0]! },
    });
    await chat.chat.completions.create({
      model: 'alpha-k2.7-code',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(upstream.requests[0]?.path).toBe('/alpha/v1/messages');
    expect(upstream.requests[0]?.headers['anthropic-beta']).toBeUndefined();
  });

  it('a malformed flag list is a 400 invalid_header, and nothing is reserved or sent', async () => {
    const error = await anthropicWithHeaders({ 'anthropic-beta': 'good-flag, <script>' })
      .messages.create({ model: 'claude-test', max_tokens: 100, messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'invalid_header' },
    });
    expect(upstream.requests).toHaveLength(0);
  });
});
