import { anthropicMessagesUpstreamWire } from '../../wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { bedrockUpstreamWire } from '../../wires/bedrock/bedrock-upstream-wire.ts';
import { loadBedrockConverse } from '../../wires/bedrock/load-bedrock-transport.ts';
import { openaiChatUpstreamWire } from '../../wires/openai-chat/openai-chat-upstream-wire.ts';
import { chatToMessagesHop } from '../chat-to-messages/chat-to-messages-hop.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';

/** A chat-completions request reaches a chat upstream as it is and a messages one through one hop (chat is the hub). */
export const openaiChatReach: ClientWireReach = {
  hops: { 'chat-to-messages': chatToMessagesHop },
  upstreamWires: {
    'openai-chat': openaiChatUpstreamWire,
    'anthropic-messages': anthropicMessagesUpstreamWire,
    bedrock: bedrockUpstreamWire,
  },
  // Bedrock's other models, through chat (the hub): Converse and its hop come with the Bedrock transport.
  lazyUpstreamWires: { 'bedrock-converse': loadBedrockConverse },
};
