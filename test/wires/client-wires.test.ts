import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../shared/http/gateway-error.ts';
import { anthropicMessagesClientWire } from '../../shared/wires/anthropic-messages/anthropic-messages-client-wire.ts';
import { parseAnthropicMessagesError } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-error.ts';
import type { ClientWireFormat, RequestAddress, WireRequest } from '../../shared/wires/client-wire-format.ts';
import { geminiClientWire } from '../../shared/wires/gemini/gemini-client-wire.ts';
import { parseGeminiError } from '../../shared/wires/gemini/gemini-upstream-error.ts';
import { openaiChatClientWire } from '../../shared/wires/openai-chat/openai-chat-client-wire.ts';
import { parseChatStreamEvent } from '../../shared/wires/openai-chat/openai-chat-stream-event.ts';
import { openaiResponsesClientWire } from '../../shared/wires/openai-responses/openai-responses-client-wire.ts';
import { parseOpenaiResponsesError } from '../../shared/wires/openai-responses/openai-responses-upstream-error.ts';

const address = (innerPath: string, query = ''): RequestAddress => ({
  innerPath,
  query: new URLSearchParams(query),
});
const interrupted = new GatewayError(502, 'upstream_interrupted', 'The upstream stream was interrupted.');

function codeOf(action: () => void): string | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error.code;
    throw error;
  }
  return undefined;
}

/** The `data` of the one SSE event a client wire writes when a stream fails, and its event name. */
function streamErrorOf<Event>(
  clientWire: Pick<ClientWireFormat<WireRequest, Event>, 'streamErrorEvent' | 'encodeEvent'>,
): { event: string | undefined; data: string } {
  const text = clientWire.encodeEvent(clientWire.streamErrorEvent(interrupted));
  expect(text.endsWith('\n\n')).toBe(true);
  const lines = text.trim().split('\n');
  return {
    event: lines.find((line) => line.startsWith('event: '))?.slice('event: '.length),
    data: lines.find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '',
  };
}

describe('the client wires', () => {
  it('read model, streaming and output cap from where each wire puts them', () => {
    const responses = { model: 'openai/gpt-test', input: 'hi', stream: true, max_output_tokens: 64 };
    expect(openaiResponsesClientWire.modelOf(responses, address('/v1/responses'))).toBe('openai/gpt-test');
    expect(openaiResponsesClientWire.isStream(responses, address('/v1/responses'))).toBe(true);
    expect(openaiResponsesClientWire.requestedOutput(responses)).toBe(64);

    const messages = { model: 'claude-test', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] };
    expect(anthropicMessagesClientWire.isStream(messages, address('/v1/messages'))).toBe(false);
    expect(anthropicMessagesClientWire.requestedOutput(messages)).toBe(32);

    const generate = { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 16 } };
    const streamed = address('/v1beta/models/google/gemini-test:streamGenerateContent', 'alt=sse');
    expect(geminiClientWire.modelOf(generate, streamed)).toBe('google/gemini-test');
    expect(geminiClientWire.isStream(generate, streamed)).toBe(true);
    expect(geminiClientWire.requestedOutput(generate)).toBe(16);
  });

  it('keep the fields they do not read in the typed request, so a pass-through sends them on', () => {
    const request = openaiChatClientWire.parseRequest(
      { model: 'm', messages: [{ role: 'user', content: 'hi', name: 'dana' }], vendor_flag: { on: true }, seed: 7 },
      address('/v1/chat/completions'),
    );
    expect(request).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hi', name: 'dana' }],
      vendor_flag: { on: true },
      seed: 7,
    });
  });

  it('drop from a chat pass-through only the usage chunk a client did not ask for', () => {
    const path = address('/v1/chat/completions');
    const usageOnly = parseChatStreamEvent({ event: undefined, data: '{"choices":[],"usage":{"prompt_tokens":1}}' });
    const content = parseChatStreamEvent({ event: undefined, data: '{"choices":[{"delta":{"content":"a"}}]}' });
    if (!usageOnly || !content) throw new Error('the chunks did not parse');
    const drops = openaiChatClientWire.passThroughDrops(
      openaiChatClientWire.parseRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, path),
    );
    expect([drops?.(usageOnly), drops?.(content)]).toEqual([true, false]);
    const asked = openaiChatClientWire.parseRequest(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } },
      path,
    );
    expect(openaiChatClientWire.passThroughDrops(asked)).toBeUndefined();
  });

  it('accept fields they do not read and refuse wrong types in the ones they do', () => {
    const responsesPath = address('/v1/responses');
    expect(
      codeOf(() => openaiResponsesClientWire.parseRequest({ model: 'm', input: 'x', vendor_flag: 1 }, responsesPath)),
    ).toBe(undefined);
    expect(codeOf(() => openaiResponsesClientWire.parseRequest({ model: 'm', stream: 'yes' }, responsesPath))).toBe(
      'invalid_request',
    );
    const messagesPath = address('/v1/messages');
    expect(codeOf(() => anthropicMessagesClientWire.parseRequest({ model: 'm', messages: [] }, messagesPath))).toBe(
      'invalid_request',
    );
    const generatePath = address('/v1beta/models/google/gemini-test:generateContent');
    expect(
      codeOf(() => geminiClientWire.parseRequest({ contents: [{ parts: [] }], safetySettings: [] }, generatePath)),
    ).toBe(undefined);
    expect(codeOf(() => geminiClientWire.parseRequest({ contents: 'hi' }, generatePath))).toBe('invalid_request');
    // Without alt=sse a stream is one JSON array, in a framing of its own; an alt it does not know is refused.
    const withoutSse = address('/v1beta/models/google/gemini-test:streamGenerateContent');
    expect(codeOf(() => geminiClientWire.parseRequest({ contents: [{ parts: [] }] }, withoutSse))).toBe(undefined);
    expect(geminiClientWire.streamFraming?.(withoutSse)?.contentType).toBe('application/json; charset=UTF-8');
    expect(geminiClientWire.streamFraming?.(generatePath)).toBeUndefined();
    const proto = { ...withoutSse, query: new URLSearchParams('alt=proto') };
    expect(codeOf(() => geminiClientWire.parseRequest({ contents: [{ parts: [] }] }, proto))).toBe('invalid_query');
  });

  it("end a failing stream in each wire's own error form, with the gateway's code", () => {
    const responses = streamErrorOf(openaiResponsesClientWire);
    expect(responses.event).toBe('error');
    expect(parseOpenaiResponsesError(responses.data)).toMatchObject({ code: 'upstream_interrupted' });

    const messages = streamErrorOf(anthropicMessagesClientWire);
    expect(messages.event).toBe('error');
    expect(parseAnthropicMessagesError(messages.data)).toEqual({
      type: 'upstream_error',
      message: interrupted.message,
    });
    expect(JSON.parse(messages.data)).toMatchObject({ error: { code: 'upstream_interrupted' } });

    const generate = streamErrorOf(geminiClientWire);
    expect(generate.event).toBeUndefined();
    expect(parseGeminiError(generate.data)).toEqual({ type: 'UNAVAILABLE', code: 502, message: interrupted.message });
    expect(JSON.parse(generate.data)).toMatchObject({ error: { reason: 'upstream_interrupted' } });

    const chat = streamErrorOf(openaiChatClientWire);
    expect(JSON.parse(chat.data)).toMatchObject({ error: { code: 'upstream_interrupted' } });
  });
});
