import { parseRequest } from '../../http/parse-request.ts';
import type { ClientWireFormat } from '../client-wire-format.ts';
import { messagesStreamErrorEvent } from './anthropic-messages-error.ts';
import { messagesMediaParts } from './anthropic-messages-media.ts';
import { type MessagesRequest, messagesRequestSchema } from './anthropic-messages-request.ts';
import { assertMessagesCostBounded } from './anthropic-messages-spend-bounds.ts';
import { encodeMessagesStreamEvent } from './anthropic-messages-sse.ts';
import type { MessagesStreamEvent, MessagesStreamEventOut } from './anthropic-messages-stream-event.ts';

/** The Messages client wire (`POST /v1/messages`). */
export const anthropicMessagesClientWire: ClientWireFormat<
  MessagesRequest,
  MessagesStreamEventOut,
  MessagesStreamEvent
> = {
  wire: 'anthropic-messages',
  envelope: 'anthropic',
  parseRequest: (body) => parseRequest(messagesRequestSchema, body),
  modelOf: (request) => request.model,
  isStream: (request) => request.stream === true,
  requestedOutput: (request) => request.max_tokens,
  answerCount: () => 1,
  assertCostBounded: assertMessagesCostBounded,
  mediaParts: messagesMediaParts,
  passThroughDrops: () => undefined,
  streamErrorEvent: messagesStreamErrorEvent,
  encodeEvent: encodeMessagesStreamEvent,
};
