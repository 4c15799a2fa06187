import { joinUrl, type UpstreamTarget, type UpstreamWireFormat, type WireOperation } from '../upstream-wire-format.ts';
import { type MessagesAnswer, parseMessagesAnswer, usageOfMessagesAnswer } from './anthropic-messages-answer.ts';
import { withMessagesOutputCap } from './anthropic-messages-spend-bounds.ts';
import { type MessagesStreamEvent, parseMessagesStreamEvent } from './anthropic-messages-stream-event.ts';
import { createMessagesStreamUsageReader } from './anthropic-messages-usage.ts';

/** The API version every request pins; the vendor refuses requests without one. */
export const anthropicVersion = '2023-06-01';

function messagesUrl(baseUrl: string, operation: WireOperation): string {
  switch (operation) {
    case 'generate':
      return joinUrl(baseUrl, '/messages');
    case 'count-tokens':
      return joinUrl(baseUrl, '/messages/count_tokens');
    default: {
      const unknownOperation: never = operation;
      throw new Error(`no messages URL for operation ${String(unknownOperation)}`);
    }
  }
}

/** The provider credential and the pinned version; of the client's headers only `forwardedClientHeaders` go too. */
function messagesHeaders(target: UpstreamTarget): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-api-key': target.credential,
    'anthropic-version': anthropicVersion,
  };
}

/** The messages-format vendor API and engines compatible with it. */
export const anthropicMessagesUpstreamWire: UpstreamWireFormat<MessagesAnswer, MessagesStreamEvent> = {
  wire: 'anthropic-messages',
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
      headers: messagesHeaders(target),
      body: JSON.stringify(upstreamBody),
    };
  },
  usageOfAnswer: usageOfMessagesAnswer,
  parseAnswer: parseMessagesAnswer,
  parseEvent: parseMessagesStreamEvent,
  isFailure: (event) => event.type === 'error',
  createUsageReader: createMessagesStreamUsageReader,
};
