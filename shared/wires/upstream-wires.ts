import { anthropicMessagesUpstreamWire } from './anthropic-messages/anthropic-messages-upstream-wire.ts';
import { bedrockUpstreamWire } from './bedrock/bedrock-upstream-wire.ts';
import { loadBedrockConverse } from './bedrock/load-bedrock-transport.ts';
import { geminiUpstreamWire } from './gemini/gemini-upstream-wire.ts';
import { openaiChatUpstreamWire } from './openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesUpstreamWire } from './openai-responses/openai-responses-upstream-wire.ts';
import type { UpstreamWireFormat } from './upstream-wire-format.ts';
import type { ConnectionWire, UpstreamWire } from './wire-names.ts';

/** The wire module for a connection's upstream wire. */
export function upstreamWireFor(wire: ConnectionWire): UpstreamWireFormat<unknown, unknown> {
  switch (wire) {
    case 'openai-chat':
      return openaiChatUpstreamWire;
    case 'openai-responses':
      return openaiResponsesUpstreamWire;
    case 'anthropic-messages':
      return anthropicMessagesUpstreamWire;
    case 'gemini':
      return geminiUpstreamWire;
    case 'bedrock':
      return bedrockUpstreamWire;
    default: {
      const unknownWire: never = wire;
      throw new Error(`unknown upstream wire ${String(unknownWire)}`);
    }
  }
}

/**
 * The wire module a model is called with (model-wire.ts), loaded where it is not carried: Converse comes with the
 * Bedrock transport, which only a request to Bedrock loads.
 */
export async function loadUpstreamWire(wire: UpstreamWire): Promise<UpstreamWireFormat<unknown, unknown>> {
  return wire === 'bedrock-converse' ? (await loadBedrockConverse()).upstreamWire : upstreamWireFor(wire);
}
