import { describe, expect, it } from 'vitest';
import { parseAnthropicMessagesError } from '../../../shared/wires/anthropic-messages/anthropic-messages-upstream-error.ts';
import { anthropicMessagesUpstreamWire } from '../../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import type { BuildUpstreamRequestInput } from '../../../shared/wires/upstream-wire-format.ts';
import { parseSseText, readTextFixture } from '../../support/sse-fixtures.ts';

const credential = 'sk-ant-api03-provider-secret';

function clientBody(): Record<string, unknown> {
  return {
    model: 'alpha/alpha-k2.7-code',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: 'Hello' }],
    thinking: { type: 'enabled', budget_tokens: 512 },
    metadata: { user_id: 'member-7' },
    a_field_the_gateway_does_not_know: { nested: [1, 2, 3] },
  };
}

function build(overrides: Partial<BuildUpstreamRequestInput> = {}) {
  return anthropicMessagesUpstreamWire.buildUpstreamRequest({
    target: { baseUrl: 'https://api.anthropic.com/v1', credential },
    body: clientBody(),
    upstreamModel: 'alpha-for-coding',
    stream: true,
    operation: 'generate',
    ...overrides,
  });
}

describe('anthropicMessagesUpstreamWire.buildUpstreamRequest', () => {
  it('posts to /messages, and to /messages/count_tokens for a token count', () => {
    expect(anthropicMessagesUpstreamWire.wire).toBe('anthropic-messages');
    expect(build().url).toBe('https://api.anthropic.com/v1/messages');
    expect(build({ operation: 'count-tokens' }).url).toBe('https://api.anthropic.com/v1/messages/count_tokens');
    expect(build({ target: { baseUrl: 'https://engine.internal/v1/', credential } }).url).toBe(
      'https://engine.internal/v1/messages',
    );
  });

  it('sends the provider credential in x-api-key with the pinned version, and nothing else', () => {
    const { headers, body } = build();
    expect(headers).toEqual({
      'content-type': 'application/json',
      'x-api-key': credential,
      'anthropic-version': '2023-06-01',
    });
    expect(Object.keys(headers)).not.toContain('authorization');
    expect(body).not.toContain(credential);
  });

  it('rewrites the model, sets stream as given and passes every other field through untouched', () => {
    const { model: _clientModel, ...rest } = clientBody();
    expect(JSON.parse(build().body)).toEqual({ ...rest, model: 'alpha-for-coding', stream: true });
    expect(JSON.parse(build({ stream: false }).body)).toMatchObject({ stream: false });
  });

  it('leaves stream out of a token count, which rejects fields it does not know', () => {
    const body = { ...clientBody(), stream: true };
    const sent = JSON.parse(build({ operation: 'count-tokens', body }).body);
    expect(sent).not.toHaveProperty('stream');
    expect(sent.model).toBe('alpha-for-coding');
  });

  it('does not change the client body it was given', () => {
    const body = clientBody();
    build({ body });
    expect(body).toEqual(clientBody());
  });
});

describe('parseAnthropicMessagesError', () => {
  it('reads an error response body', async () => {
    expect(parseAnthropicMessagesError(await readTextFixture('wires/anthropic-messages', 'error.json'))).toEqual({
      message: 'max_tokens: Field required',
      type: 'invalid_request_error',
    });
  });

  it('reads a mid-stream error event', async () => {
    const events = parseSseText(await readTextFixture('wires/anthropic-messages', 'interrupted-stream.sse'));
    const errorEvent = events.find((event) => event.event === 'error');
    expect(parseAnthropicMessagesError(errorEvent?.data ?? '')).toEqual({
      message: 'Overloaded',
      type: 'overloaded_error',
    });
  });

  it('gives up on anything else', () => {
    expect(parseAnthropicMessagesError('<html><body>502 Bad Gateway</body></html>')).toBeUndefined();
    expect(parseAnthropicMessagesError('{"message":"no envelope"}')).toBeUndefined();
    expect(parseAnthropicMessagesError('{"type":"error","error":{}}')).toBeUndefined();
  });
});
