import { anthropicMessagesUpstreamWire } from '../../wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { bedrockUpstreamWire } from '../../wires/bedrock/bedrock-upstream-wire.ts';
import { loadBedrockConverse } from '../../wires/bedrock/load-bedrock-transport.ts';
import { openaiChatUpstreamWire } from '../../wires/openai-chat/openai-chat-upstream-wire.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { messagesToChatHop } from '../messages-to-chat/messages-to-chat-hop.ts';

/** A messages request reaches a messages upstream as it is and a chat one (the hub) through one hop. */
export const anthropicMessagesReach: ClientWireReach = {
  hops: { 'messages-to-chat': messagesToChatHop },
  upstreamWires: {
    'anthropic-messages': anthropicMessagesUpstreamWire,
    'openai-chat': openaiChatUpstreamWire,
    bedrock: bedrockUpstreamWire,
  },
  // Bedrock's other models, through chat (the hub): Converse and its hop come with the Bedrock transport.
  lazyUpstreamWires: { 'bedrock-converse': loadBedrockConverse },
};
