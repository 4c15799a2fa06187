import { loadAnthropicMessagesUpstreamWire } from '../../wires/load-upstream-wires.ts';
import { openaiChatUpstreamWire } from '../../wires/openai-chat/openai-chat-upstream-wire.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { loadBedrockReach } from './load-bedrock-reach.ts';
import { loadChatToMessagesHop } from './load-hops.ts';

/** A chat-completions request reaches a chat upstream as it is and a messages one through one hop (chat is the hub). */
export const openaiChatReach: ClientWireReach = {
  hops: { 'chat-to-messages': loadChatToMessagesHop },
  upstreamWires: {
    // The function's own wire comes with it: its usual requests, passed through, import nothing more.
    'openai-chat': async () => openaiChatUpstreamWire,
    'anthropic-messages': loadAnthropicMessagesUpstreamWire,
  },
  bedrock: loadBedrockReach,
};
