import { createParser } from 'eventsource-parser';
import type { CatalogModel } from '../catalog/catalog-data.ts';
import type { EventRewriter } from '../pipeline/event-rewriter.ts';
import { parseAnthropicMessagesError } from '../wires/anthropic-messages/anthropic-messages-error.ts';
import { includesUsage } from '../wires/openai-chat/openai-chat-client-wire.ts';
import { parseJson } from '../wires/parse-json.ts';
import type { ClientWire } from '../wires/wire-names.ts';
import { applyReasoningEffort } from './chat-to-messages/apply-reasoning-effort.ts';
import { chatCompletionId } from './chat-to-messages/chat-completion.ts';
import { convertMessagesResponseToChat } from './chat-to-messages/convert-from-messages-response.ts';
import { convertChatRequestToMessages } from './chat-to-messages/convert-to-messages-request.ts';
import { createMessagesToChatStreamTransform } from './chat-to-messages/messages-to-chat-stream.ts';
import { assertThinkingNotSwitchedOff } from './chat-to-messages/thinking-controls.ts';
import { createResponsesToChatHop } from './responses-to-chat/responses-to-chat-hop.ts';
import type { TranslationHop } from './translation-paths.ts';

export interface TranslationContext {
  requestId: string;
  /** The public model id the client named, echoed in translated answers. */
  publicModel: string;
  upstreamModel: string;
  /** The output tokens admission reserves: sent upstream where the client stated no maximum. */
  outputAllowance: number;
  createdAt: Date;
}

/**
 * One step between two wires. Requests travel toward the upstream; answers, errors and streams travel back.
 * Each hop is a plain object of typed converters, so a chain of hops is just composition.
 */
export interface TranslationHopImplementation {
  /** The wire of the request this hop sends on: the model's chat-form rules apply where that is chat. */
  readonly produces: 'openai-chat' | 'anthropic-messages';
  request(body: Record<string, unknown>, context: TranslationContext): Record<string, unknown>;
  response(upstreamText: string, context: TranslationContext): string;
  /** An upstream error body, re-rendered in the nearer wire's envelope (the status is kept by the caller). */
  error(upstreamText: string): string;
  stream(body: Record<string, unknown>, context: TranslationContext): EventRewriter;
}

const chatToMessagesHop: TranslationHopImplementation = {
  produces: 'anthropic-messages',
  request: (chatBody, context) =>
    convertChatRequestToMessages(chatBody, {
      upstreamModel: context.upstreamModel,
      maxTokensDefault: context.outputAllowance,
      thinking: { type: 'enabled' },
    }) as unknown as Record<string, unknown>,
  response: (upstreamText, context) =>
    JSON.stringify(
      convertMessagesResponseToChat(parseJson(upstreamText), {
        id: chatCompletionId(context.requestId),
        model: context.publicModel,
        created: Math.floor(context.createdAt.getTime() / 1000),
      }),
    ),
  error(upstreamText) {
    const details = parseAnthropicMessagesError(upstreamText);
    const message = details?.message ?? 'The upstream provider returned an error.';
    return JSON.stringify({ error: { message, type: details?.type ?? 'api_error', code: null, param: null } });
  },
  stream: (chatBody, context) =>
    createMessagesToChatStreamTransform({
      id: chatCompletionId(context.requestId),
      model: context.publicModel,
      includeUsage: includesUsage(chatBody),
      created: Math.floor(context.createdAt.getTime() / 1000),
    }),
};

function hopImplementation(hop: TranslationHop): TranslationHopImplementation {
  switch (hop) {
    case 'chat-to-messages':
      return chatToMessagesHop;
    case 'responses-to-chat':
      // Stateful per request: its answer repeats the settings of the body it translated.
      return createResponsesToChatHop();
    default: {
      const unknownHop: never = hop;
      throw new Error(`unknown translation hop ${String(unknownHop)}`);
    }
  }
}

/** The request, answers and stream of one request across its chain of hops (empty for a pass-through). */
export interface WireTranslation {
  /** The body in the upstream's wire. Refusals (400) are thrown here, before anything is reserved. */
  upstreamBody: Record<string, unknown>;
  response(upstreamText: string): string;
  error(upstreamText: string): string;
  /** Undefined for a pass-through: the client wire's own rewriter applies. */
  streamRewriter(): EventRewriter | undefined;
}

/**
 * Builds the translation of one request. The model's chat-form rules (thinking required, reasoning effort) are
 * applied wherever the body is in chat form: chat is the hub every translation passes through.
 */
export function translateRequest(
  clientBody: Record<string, unknown>,
  input: { hops: readonly TranslationHop[]; clientWire: ClientWire; catalog: CatalogModel | undefined },
  context: TranslationContext,
): WireTranslation {
  // Checked on the client's own body: a switch of its wire that translation would drop must still be refused.
  if (input.catalog?.thinkingRequired) assertThinkingNotSwitchedOff(clientBody);
  const hops = input.hops.map(hopImplementation);
  const applyChatRules = (body: Record<string, unknown>) =>
    input.catalog ? applyReasoningEffort(body, input.catalog) : body;
  // The body each hop receives, nearest the client first; the last one is what goes upstream.
  const bodies: Record<string, unknown>[] = [
    input.clientWire === 'openai-chat' ? applyChatRules(clientBody) : clientBody,
  ];
  hops.forEach((hop, index) => {
    const translated = hop.request(bodies[index]!, context);
    bodies.push(hop.produces === 'openai-chat' ? applyChatRules(translated) : translated);
  });
  return {
    upstreamBody: bodies[bodies.length - 1]!,
    response: (upstreamText) => hops.reduceRight((text, hop) => hop.response(text, context), upstreamText),
    error: (upstreamText) => hops.reduceRight((text, hop) => hop.error(text), upstreamText),
    streamRewriter() {
      if (hops.length === 0) return undefined;
      return hops
        .map((hop, index) => hop.stream(bodies[index]!, context))
        .reduce((outer, inner) => chainRewriters(outer, inner));
    },
  };
}

/** Feeds what `inner` (nearer the upstream) writes into `outer` (nearer the client), event by event. */
function chainRewriters(outer: EventRewriter, inner: EventRewriter): EventRewriter {
  let written = '';
  const parser = createParser({
    onEvent: (message) => {
      written += outer.push({ event: message.event, data: message.data });
    },
  });
  const take = () => {
    const text = written;
    written = '';
    return text;
  };
  return {
    push(event) {
      parser.feed(inner.push(event));
      return take();
    },
    end() {
      parser.feed(`${inner.end()}\n\n`);
      return take() + outer.end();
    },
  };
}
