import { type CallIdPlace, callIdRewrite } from '../../translation/chat-to-messages/reasoning-in-call-id.ts';
import { upstreamRequestJson } from '../upstream-request-json.ts';
import type { UpstreamWireFormat, WireOperation } from '../upstream-wire-format.ts';
import { type MessagesAnswer, parseMessagesAnswer, usageOfMessagesAnswer } from './anthropic-messages-answer.ts';
import { withMessagesOutputCap } from './anthropic-messages-spend-bounds.ts';
import { type MessagesStreamEvent, parseMessagesStreamEvent } from './anthropic-messages-stream-event.ts';
import {
  messagesApiUrl,
  messagesAuthentication,
  messagesBaseUrl,
  messagesUpstreamModelList,
} from './anthropic-messages-upstream-api.ts';
import { createMessagesStreamUsageReader } from './anthropic-messages-usage.ts';

function messagesUrl(baseUrl: string, operation: WireOperation): string {
  switch (operation) {
    case 'generate':
      return messagesApiUrl(baseUrl, '/messages');
    case 'count-tokens':
      return messagesApiUrl(baseUrl, '/messages/count_tokens');
    default: {
      const unknownOperation: never = operation;
      throw new Error(`no messages URL for operation ${String(unknownOperation)}`);
    }
  }
}

/** A turn's `tool_use` blocks and the `tool_result` blocks that answer them. */
const messagesCallIdPlaces: readonly CallIdPlace[] = [
  ['messages', 'content', 'id'],
  ['messages', 'content', 'tool_use_id'],
];
export const messagesRewrites = [callIdRewrite(messagesCallIdPlaces)];

/** The messages-format vendor API and engines compatible with it. */
export const anthropicMessagesUpstreamWire: UpstreamWireFormat<MessagesAnswer, MessagesStreamEvent> = {
  wire: 'anthropic-messages',
  baseUrl: messagesBaseUrl,
  // Beta feature flags (prompt caching, extended context, interleaved thinking…): the body fields they unlock
  // are refused without them.
  forwardedClientHeaders: ['anthropic-beta'],
  buildUpstreamRequest({ target, body, upstreamModel, stream, operation, outputCap }) {
    const upstreamBody: Record<string, unknown> = { ...body, model: upstreamModel };
    if (operation === 'generate') {
      upstreamBody.stream = stream;
      if (outputCap !== undefined) Object.assign(upstreamBody, withMessagesOutputCap(upstreamBody, outputCap));
    } else {
      // The token-count endpoint refuses fields outside its own parameters, and `stream` is not one of them.
      delete upstreamBody.stream;
    }
    return {
      url: messagesUrl(target.baseUrl, operation),
      headers: { 'content-type': 'application/json', ...messagesAuthentication(target) },
      body: upstreamRequestJson(upstreamBody, messagesRewrites),
    };
  },
  modelList: messagesUpstreamModelList,
  minimalGeneration: { max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] },
  usageOfAnswer: usageOfMessagesAnswer,
  parseAnswer: parseMessagesAnswer,
  parseEvent: parseMessagesStreamEvent,
  isFailure: (event) => event.type === 'error',
  // `message_stop`, or the `message_delta` with the stop reason (and the final usage) just before it.
  endsAnswer: (event) =>
    event.type === 'message_stop' || (event.type === 'message_delta' && Boolean(event.delta?.stop_reason)),
  createUsageReader: createMessagesStreamUsageReader,
};
