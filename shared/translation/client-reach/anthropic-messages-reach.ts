import { anthropicMessagesUpstreamWire } from '../../wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { loadOpenaiChatUpstreamWire } from '../../wires/load-upstream-wires.ts';
import type { ClientWireReach } from '../client-wire-reach.ts';
import { loadBedrockReach } from './load-bedrock-reach.ts';
import { loadMessagesToChatHop } from './load-hops.ts';

/** A messages request reaches a messages upstream as it is and a chat one (the hub) through one hop. */
export const anthropicMessagesReach: ClientWireReach = {
  hops: { 'messages-to-chat': loadMessagesToChatHop },
  upstreamWires: {
    // The function's own wire comes with it: its usual requests, passed through, import nothing more.
    'anthropic-messages': async () => anthropicMessagesUpstreamWire,
    'openai-chat': loadOpenaiChatUpstreamWire,
  },
  bedrock: loadBedrockReach,
};
