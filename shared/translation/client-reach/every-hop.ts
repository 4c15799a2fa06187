import { chatToConverseHop } from '../chat-to-converse/chat-to-converse-hop.ts';
import { chatToMessagesHop } from '../chat-to-messages/chat-to-messages-hop.ts';
import { messagesToChatHop } from '../messages-to-chat/messages-to-chat-hop.ts';
import { responsesToChatHop } from '../responses-to-chat/responses-to-chat-hop.ts';
import type { TranslationHopName } from '../translation-paths.ts';
import type { AnyHop } from '../wire-translation.ts';

/**
 * Every hop the gateway has, by name: for tests that translate between any two wires. No function imports it: each
 * carries only its own wire's hops (the files beside this one), to keep other wires' translators out of its bundle.
 */
export const everyHop: { readonly [Name in TranslationHopName]: AnyHop } = {
  'responses-to-chat': responsesToChatHop,
  'chat-to-messages': chatToMessagesHop,
  'messages-to-chat': messagesToChatHop,
  'chat-to-converse': chatToConverseHop,
};
