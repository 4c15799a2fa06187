import { loadOnce } from '../async-work/load-once.ts';
import type { UpstreamWireFormat } from './upstream-wire-format.ts';

/**
 * Each upstream wire but Bedrock's (which come with the rest of Bedrock's code), imported on the first request that
 * goes to a connection of it: in a Lambda bundle each is a file beside the entry that a cold start does not load
 * (docs/bundles.md). One loader per wire, so a function's bundle holds only the wires it names.
 */

type AnyUpstreamWire = UpstreamWireFormat<unknown, unknown>;

export const loadOpenaiChatUpstreamWire = /* @__PURE__ */ loadOnce<AnyUpstreamWire>(() =>
  import('./openai-chat/openai-chat-upstream-wire.ts').then(
    (module) => module.openaiChatUpstreamWire as AnyUpstreamWire,
  ),
);

export const loadOpenaiResponsesUpstreamWire = /* @__PURE__ */ loadOnce<AnyUpstreamWire>(() =>
  import('./openai-responses/openai-responses-upstream-wire.ts').then(
    (module) => module.openaiResponsesUpstreamWire as AnyUpstreamWire,
  ),
);

export const loadAnthropicMessagesUpstreamWire = /* @__PURE__ */ loadOnce<AnyUpstreamWire>(() =>
  import('./anthropic-messages/anthropic-messages-upstream-wire.ts').then(
    (module) => module.anthropicMessagesUpstreamWire as AnyUpstreamWire,
  ),
);

export const loadGeminiUpstreamWire = /* @__PURE__ */ loadOnce<AnyUpstreamWire>(() =>
  import('./gemini/gemini-upstream-wire.ts').then((module) => module.geminiUpstreamWire as AnyUpstreamWire),
);
