import { loadAnthropicMessagesUpstreamWire, loadOpenaiChatUpstreamWire } from '../../wires/load-upstream-wires.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { loadBedrockReach } from './load-bedrock-reach.ts';
import { loadMessagesToChatHop } from './load-hops.ts';

/** A messages request reaches a messages upstream as it is and a chat one (the hub) through one hop. */
export const anthropicMessagesReach: ClientWireReach = {
  hops: { 'messages-to-chat': loadMessagesToChatHop },
  upstreamWires: {
    'anthropic-messages': loadAnthropicMessagesUpstreamWire,
    'openai-chat': loadOpenaiChatUpstreamWire,
  },
  bedrock: loadBedrockReach,
};
