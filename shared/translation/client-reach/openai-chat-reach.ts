import { loadAnthropicMessagesUpstreamWire, loadOpenaiChatUpstreamWire } from '../../wires/load-upstream-wires.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { loadBedrockReach } from './load-bedrock-reach.ts';
import { loadChatToMessagesHop } from './load-hops.ts';

/** A chat-completions request reaches a chat upstream as it is and a messages one through one hop (chat is the hub). */
export const openaiChatReach: ClientWireReach = {
  hops: { 'chat-to-messages': loadChatToMessagesHop },
  upstreamWires: {
    'openai-chat': loadOpenaiChatUpstreamWire,
    'anthropic-messages': loadAnthropicMessagesUpstreamWire,
  },
  bedrock: loadBedrockReach,
};
