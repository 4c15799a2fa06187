import { anthropicMessagesUpstreamWire } from './anthropic-messages/anthropic-messages-upstream-wire.ts';
import { bedrockConverseUpstreamWire } from './bedrock-converse/bedrock-converse-upstream-wire.ts';
import { geminiUpstreamWire } from './gemini/gemini-upstream-wire.ts';
import { openaiChatUpstreamWire } from './openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesUpstreamWire } from './openai-responses/openai-responses-upstream-wire.ts';
import type { UpstreamWireFormat } from './upstream-wire-format.ts';
import type { UpstreamWire } from './wire-names.ts';

/** The wire module for a connection's upstream wire. */
export function upstreamWireFor(wire: UpstreamWire): UpstreamWireFormat<unknown, unknown> {
  switch (wire) {
    case 'openai-chat':
      return openaiChatUpstreamWire;
    case 'openai-responses':
      return openaiResponsesUpstreamWire;
    case 'anthropic-messages':
      return anthropicMessagesUpstreamWire;
    case 'gemini':
      return geminiUpstreamWire;
    case 'bedrock-converse':
      return bedrockConverseUpstreamWire;
    default: {
      const unknownWire: never = wire;
      throw new Error(`unknown upstream wire ${String(unknownWire)}`);
    }
  }
}
