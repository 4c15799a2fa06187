import { loadOnce } from '../../async-work/load-once.ts';
import type { AnyHop } from '../wire-translation.ts';

/**
 * Each translation hop, imported on the first request that takes it: a request whose connection speaks its own wire
 * never loads a translator, and in a Lambda bundle each hop is a file beside the entry that a cold start does not
 * load (docs/bundles.md). One loader per hop, so a function's bundle holds only the hops its reach names.
 */

export const loadResponsesToChatHop = /* @__PURE__ */ loadOnce<AnyHop>(() =>
  import('../responses-to-chat/responses-to-chat-hop.ts').then((module) => module.responsesToChatHop as AnyHop),
);

export const loadChatToMessagesHop = /* @__PURE__ */ loadOnce<AnyHop>(() =>
  import('../chat-to-messages/chat-to-messages-hop.ts').then((module) => module.chatToMessagesHop as AnyHop),
);

export const loadMessagesToChatHop = /* @__PURE__ */ loadOnce<AnyHop>(() =>
  import('../messages-to-chat/messages-to-chat-hop.ts').then((module) => module.messagesToChatHop as AnyHop),
);
