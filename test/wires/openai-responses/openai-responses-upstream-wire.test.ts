import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/gateway-error.ts';
import { callIdCarryingReasoning } from '../../../shared/translation/chat-to-messages/reasoning-in-call-id.ts';
import { encodeReasoningState } from '../../../shared/translation/responses-to-chat/reasoning-state.ts';
import { parseOpenaiResponsesError } from '../../../shared/wires/openai-responses/openai-responses-upstream-error.ts';
import { openaiResponsesUpstreamWire } from '../../../shared/wires/openai-responses/openai-responses-upstream-wire.ts';
import type { BuildUpstreamRequestInput } from '../../../shared/wires/upstream-wire-format.ts';
import { parseSseText, readTextFixture } from '../../support/sse-fixtures.ts';

const credential = 'sk-proj-provider-secret';

function clientBody(): Record<string, unknown> {
  return {
    model: 'alpha/alpha-k3',
    input: 'Hello',
    max_output_tokens: 256,
    reasoning: { effort: 'high' },
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }],
    a_field_the_gateway_does_not_know: { nested: [1, 2, 3] },
  };
}

function build(overrides: Partial<BuildUpstreamRequestInput> = {}) {
  return openaiResponsesUpstreamWire.buildUpstreamRequest({
    target: { baseUrl: 'https://api.openai.com/v1', credential },
    body: clientBody(),
    upstreamModel: 'k3',
    stream: true,
    operation: 'generate',
    ...overrides,
  });
}

describe('openaiResponsesUpstreamWire.buildUpstreamRequest', () => {
  it('posts to /responses', () => {
    expect(openaiResponsesUpstreamWire.wire).toBe('openai-responses');
    expect(build().url).toBe('https://api.openai.com/v1/responses');
    expect(build({ target: { baseUrl: 'https://engine.internal/v1/', credential } }).url).toBe(
      'https://engine.internal/v1/responses',
    );
  });

  it('sends the provider credential as a bearer token, and nothing else', () => {
    const { headers, body } = build();
    expect(headers).toEqual({ 'content-type': 'application/json', authorization: `Bearer ${credential}` });
    expect(body).not.toContain(credential);
  });

  it('rewrites the model, sets stream as given and passes every other field through untouched', () => {
    const { model: _clientModel, ...rest } = clientBody();
    expect(JSON.parse(build().body)).toEqual({ ...rest, model: 'k3', stream: true });
    expect(JSON.parse(build({ stream: false }).body)).toMatchObject({ model: 'k3', stream: false });
  });

  it('sends a history from the Responses translation without the gateway`s reasoning, ids and carriers', () => {
    const carrier = callIdCarryingReasoning('toolu_1', [{ type: 'thinking', thinking: 'Look.', signature: 'sig' }]);
    const input = [
      { role: 'user', content: 'Weather?' },
      {
        type: 'reasoning',
        id: 'rs_req_Od_L-8iE5w8TtTll_0',
        summary: [],
        encrypted_content: encodeReasoningState({ text: 'Look.' }),
      },
      {
        type: 'function_call',
        id: 'fc_req_Od_L-8iE5w8TtTll_1',
        call_id: carrier,
        name: 'get_weather',
        arguments: '{}',
      },
      { type: 'function_call_output', call_id: carrier, output: 'Sunny' },
    ];
    expect(JSON.parse(build({ body: { ...clientBody(), input } }).body).input).toEqual([
      { role: 'user', content: 'Weather?' },
      { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'Sunny' },
    ]);
  });

  it('refuses a token count rather than sending it as a generation', () => {
    expect(() => build({ operation: 'count-tokens' })).toThrow(GatewayError);
  });
});

describe('parseOpenaiResponsesError', () => {
  it('reads an error response body', async () => {
    expect(parseOpenaiResponsesError(await readTextFixture('wires/openai-responses', 'error.json'))).toEqual({
      message:
        'Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
  });

  it('reads the flat mid-stream error event', async () => {
    const events = parseSseText(await readTextFixture('wires/openai-responses', 'error-event-stream.sse'));
    const errorEvent = events.find((event) => event.event === 'error');
    expect(parseOpenaiResponsesError(errorEvent?.data ?? '')).toEqual({
      message: 'Rate limit reached for gpt-4.1 on tokens per min (TPM).',
      type: 'rate_limit_exceeded',
      code: 'rate_limit_exceeded',
    });
  });

  it('falls back to the code when a compatible engine sends no type', () => {
    expect(parseOpenaiResponsesError('{"error":{"message":"busy","type":null,"code":"overloaded"}}')).toEqual({
      message: 'busy',
      type: 'overloaded',
      code: 'overloaded',
    });
  });

  it('gives up on anything else', () => {
    expect(parseOpenaiResponsesError('<html>502</html>')).toBeUndefined();
    expect(parseOpenaiResponsesError('{"detail":"Not Found"}')).toBeUndefined();
    expect(parseOpenaiResponsesError('{"error":{}}')).toBeUndefined();
  });
});
