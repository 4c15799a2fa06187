import {
  loadAnthropicMessagesUpstreamWire,
  loadOpenaiChatUpstreamWire,
  loadOpenaiResponsesUpstreamWire,
} from '../../wires/load-upstream-wires.ts';
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
    'openai-responses': loadOpenaiResponsesUpstreamWire,
    'openai-chat': loadOpenaiChatUpstreamWire,
    'anthropic-messages': loadAnthropicMessagesUpstreamWire,
  },
  bedrock: loadBedrockReach,
};
