import { anthropicMessagesUpstreamWire } from '../../wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { bedrockUpstreamWire } from '../../wires/bedrock/bedrock-upstream-wire.ts';
import { loadBedrockConverse } from '../../wires/bedrock/load-bedrock-transport.ts';
import { openaiChatUpstreamWire } from '../../wires/openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesUpstreamWire } from '../../wires/openai-responses/openai-responses-upstream-wire.ts';
import { chatToMessagesHop } from '../chat-to-messages/chat-to-messages-hop.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { responsesToChatHop } from '../responses-to-chat/responses-to-chat-hop.ts';

/** A responses request reaches a responses upstream as it is, a chat one through one hop and a messages one on through the hub. */
export const openaiResponsesReach: ClientWireReach = {
  hops: {
    'responses-to-chat': responsesToChatHop,
    'chat-to-messages': chatToMessagesHop,
  },
  upstreamWires: {
    'openai-responses': openaiResponsesUpstreamWire,
    'openai-chat': openaiChatUpstreamWire,
    'anthropic-messages': anthropicMessagesUpstreamWire,
    bedrock: bedrockUpstreamWire,
  },
  // Bedrock's other models, through chat (the hub): Converse and its hop come with the Bedrock transport.
  lazyUpstreamWires: { 'bedrock-converse': loadBedrockConverse },
};
