import { describe, expect, it } from 'vitest';
import { anthropicMessagesUpstreamWire } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { geminiUpstreamWire } from '../../shared/wires/gemini/gemini-upstream-wire.ts';
import { openaiChatUpstreamWire } from '../../shared/wires/openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesUpstreamWire } from '../../shared/wires/openai-responses/openai-responses-upstream-wire.ts';
import { joinUrl, type UpstreamWireFormat } from '../../shared/wires/upstream-wire-format.ts';

function urlOf(wire: UpstreamWireFormat<unknown, unknown>, baseUrl: string): string {
  return wire.buildUpstreamRequest({
    target: { baseUrl, credential: 'provider-secret' },
    body: {},
    upstreamModel: 'm',
    stream: false,
    operation: 'generate',
  }).url;
}

describe('joinUrl', () => {
  it('puts a path under a base URL however many slashes the base URL ends with', () => {
    expect(joinUrl('https://engine.internal/v1', '/chat/completions')).toBe(
      'https://engine.internal/v1/chat/completions',
    );
    expect(joinUrl('https://engine.internal/v1/', '/responses')).toBe('https://engine.internal/v1/responses');
    expect(joinUrl('https://engine.internal/v1//', '/messages')).toBe('https://engine.internal/v1/messages');
  });

  it('is how every wire addresses its upstream', () => {
    const base = 'https://engine.internal/v1//';
    expect(urlOf(openaiChatUpstreamWire, base)).toBe('https://engine.internal/v1/chat/completions');
    expect(urlOf(openaiResponsesUpstreamWire, base)).toBe('https://engine.internal/v1/responses');
    expect(urlOf(anthropicMessagesUpstreamWire, base)).toBe('https://engine.internal/v1/messages');
    expect(urlOf(geminiUpstreamWire, base)).toBe('https://engine.internal/v1/models/m:generateContent');
  });
});
