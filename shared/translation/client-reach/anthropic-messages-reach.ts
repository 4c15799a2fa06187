import { anthropicMessagesUpstreamWire } from '../../wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { openaiChatUpstreamWire } from '../../wires/openai-chat/openai-chat-upstream-wire.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { messagesToChatHop } from '../messages-to-chat/messages-to-chat-hop.ts';

/** A messages request reaches a messages upstream as it is and a chat one (the hub) through one hop. */
export const anthropicMessagesReach: ClientWireReach = {
  hops: { 'messages-to-chat': messagesToChatHop },
  upstreamWires: { 'anthropic-messages': anthropicMessagesUpstreamWire, 'openai-chat': openaiChatUpstreamWire },
};
