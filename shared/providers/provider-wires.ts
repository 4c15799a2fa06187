import type { UpstreamWire } from '../http/wire.ts';
import { anthropicMessagesWire } from './anthropic-messages/anthropic-messages-wire.ts';
import { geminiWire } from './gemini/gemini-wire.ts';
import { openaiChatWire } from './openai-chat/openai-chat-wire.ts';
import { openaiResponsesWire } from './openai-responses/openai-responses-wire.ts';
import type { ProviderWire } from './provider-wire.ts';

/** The wire module for a connection's upstream wire. */
export function providerWireFor(wire: UpstreamWire): ProviderWire {
  switch (wire) {
    case 'openai-chat':
      return openaiChatWire;
    case 'openai-responses':
      return openaiResponsesWire;
    case 'anthropic-messages':
      return anthropicMessagesWire;
    case 'gemini':
      return geminiWire;
    default: {
      const unknownWire: never = wire;
      throw new Error(`unknown upstream wire ${String(unknownWire)}`);
    }
  }
}
