import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../shared/http/gateway-error.ts';
import { anthropicMessagesHandler } from '../../shared/pipeline/anthropic-messages-handler.ts';
import type { ClientWireHandler, RequestAddress } from '../../shared/pipeline/client-wire-handler.ts';
import { geminiHandler } from '../../shared/pipeline/gemini-handler.ts';
import { openaiChatHandler } from '../../shared/pipeline/openai-chat-handler.ts';
import { openaiResponsesHandler } from '../../shared/pipeline/openai-responses-handler.ts';
import { parseAnthropicMessagesError } from '../../shared/providers/anthropic-messages/anthropic-messages-error.ts';
import { parseGeminiError } from '../../shared/providers/gemini/gemini-error.ts';
import { parseOpenaiResponsesError } from '../../shared/providers/openai-responses/openai-responses-error.ts';

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

/** The `data` of the one SSE event a handler writes when a stream fails, and its event name. */
function streamErrorOf(handler: ClientWireHandler): { event: string | undefined; data: string } {
  const text = handler.streamErrorEvent(interrupted);
  expect(text.endsWith('\n\n')).toBe(true);
  const lines = text.trim().split('\n');
  return {
    event: lines.find((line) => line.startsWith('event: '))?.slice('event: '.length),
    data: lines.find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '',
  };
}

describe('the client wire handlers', () => {
  it('read model, streaming and output cap from where each wire puts them', () => {
    const responses = { model: 'openai/gpt-test', input: 'hi', stream: true, max_output_tokens: 64 };
    expect(openaiResponsesHandler.modelOf(responses, address('/v1/responses'))).toBe('openai/gpt-test');
    expect(openaiResponsesHandler.isStream(responses, address('/v1/responses'))).toBe(true);
    expect(openaiResponsesHandler.requestedOutput(responses)).toBe(64);

    const messages = { model: 'claude-test', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] };
    expect(anthropicMessagesHandler.isStream(messages, address('/v1/messages'))).toBe(false);
    expect(anthropicMessagesHandler.requestedOutput(messages)).toBe(32);

    const generate = { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 16 } };
    const streamed = address('/v1beta/models/google/gemini-test:streamGenerateContent', 'alt=sse');
    expect(geminiHandler.modelOf(generate, streamed)).toBe('google/gemini-test');
    expect(geminiHandler.isStream(generate, streamed)).toBe(true);
    expect(geminiHandler.requestedOutput(generate)).toBe(16);
  });

  it('accept fields they do not read and refuse wrong types in the ones they do', () => {
    const responsesPath = address('/v1/responses');
    expect(
      codeOf(() => openaiResponsesHandler.validate({ model: 'm', input: 'x', vendor_flag: 1 }, responsesPath)),
    ).toBe(undefined);
    expect(codeOf(() => openaiResponsesHandler.validate({ model: 'm', stream: 'yes' }, responsesPath))).toBe(
      'invalid_request',
    );
    const messagesPath = address('/v1/messages');
    expect(codeOf(() => anthropicMessagesHandler.validate({ model: 'm', messages: [] }, messagesPath))).toBe(
      'invalid_request',
    );
    const generatePath = address('/v1beta/models/google/gemini-test:generateContent');
    expect(codeOf(() => geminiHandler.validate({ contents: [{ parts: [] }], safetySettings: [] }, generatePath))).toBe(
      undefined,
    );
    expect(codeOf(() => geminiHandler.validate({ contents: 'hi' }, generatePath))).toBe('invalid_request');
    const withoutSse = address('/v1beta/models/google/gemini-test:streamGenerateContent');
    expect(codeOf(() => geminiHandler.validate({ contents: [{ parts: [] }] }, withoutSse))).toBe('sse_required');
  });

  it("end a failing stream in each wire's own error form, with the gateway's code", () => {
    const responses = streamErrorOf(openaiResponsesHandler);
    expect(responses.event).toBe('error');
    expect(parseOpenaiResponsesError(responses.data)).toMatchObject({ code: 'upstream_interrupted' });

    const messages = streamErrorOf(anthropicMessagesHandler);
    expect(messages.event).toBe('error');
    expect(parseAnthropicMessagesError(messages.data)).toEqual({
      type: 'upstream_error',
      message: interrupted.message,
    });
    expect(JSON.parse(messages.data)).toMatchObject({ error: { code: 'upstream_interrupted' } });

    const generate = streamErrorOf(geminiHandler);
    expect(generate.event).toBeUndefined();
    expect(parseGeminiError(generate.data)).toEqual({ type: 'UNAVAILABLE', code: 502, message: interrupted.message });
    expect(JSON.parse(generate.data)).toMatchObject({ error: { reason: 'upstream_interrupted' } });

    const chat = streamErrorOf(openaiChatHandler);
    expect(JSON.parse(chat.data)).toMatchObject({ error: { code: 'upstream_interrupted' } });
  });
});
