import { describe, expect, it } from 'vitest';
import { anthropicMessagesWire } from '../../shared/providers/anthropic-messages/anthropic-messages-wire.ts';
import { geminiWire } from '../../shared/providers/gemini/gemini-wire.ts';
import { openaiChatWire } from '../../shared/providers/openai-chat/openai-chat-wire.ts';
import { openaiResponsesWire } from '../../shared/providers/openai-responses/openai-responses-wire.ts';
import { joinUrl, type ProviderWire } from '../../shared/providers/provider-wire.ts';

function urlOf(wire: ProviderWire, baseUrl: string): string {
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
    expect(urlOf(openaiChatWire, base)).toBe('https://engine.internal/v1/chat/completions');
    expect(urlOf(openaiResponsesWire, base)).toBe('https://engine.internal/v1/responses');
    expect(urlOf(anthropicMessagesWire, base)).toBe('https://engine.internal/v1/messages');
    expect(urlOf(geminiWire, base)).toBe('https://engine.internal/v1/models/m:generateContent');
  });
});
