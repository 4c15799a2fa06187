import { loadAnthropicMessagesUpstreamWire, loadOpenaiChatUpstreamWire } from '../../wires/load-upstream-wires.ts';
import { openaiResponsesUpstreamWire } from '../../wires/openai-responses/openai-responses-upstream-wire.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { loadBedrockReach } from './load-bedrock-reach.ts';
import { loadChatToMessagesHop, loadResponsesToChatHop } from './load-hops.ts';

/** A responses request reaches a responses upstream as it is, a chat one through one hop and a messages one on through the hub. */
export const openaiResponsesReach: ClientWireReach = {
  hops: {
    'responses-to-chat': loadResponsesToChatHop,
    'chat-to-messages': loadChatToMessagesHop,
  },
  upstreamWires: {
    // The function's own wire comes with it: its usual requests, passed through, import nothing more.
    'openai-responses': async () => openaiResponsesUpstreamWire,
    'openai-chat': loadOpenaiChatUpstreamWire,
    'anthropic-messages': loadAnthropicMessagesUpstreamWire,
  },
  bedrock: loadBedrockReach,
};
