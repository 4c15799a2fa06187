import {
  type ConverseToChatStreamOptions,
  createConverseToChatTransformer,
} from '../../../shared/translation/chat-to-converse/converse-to-chat-stream.ts';
import { parseConverseStreamEvent } from '../../../shared/wires/bedrock-converse/bedrock-converse-stream-event.ts';
import { encodeChatStreamEvent } from '../../../shared/wires/openai-chat/openai-chat-sse.ts';
import { eventByEvent, readFixtureEvents, transformEvents } from '../../support/sse-fixtures.ts';

export const fixtures = 'translation/chat-to-converse';

export const streamOptions: ConverseToChatStreamOptions = {
  id: 'chatcmpl-req-1',
  model: 'bedrock/nova-lite',
  includeUsage: false,
  created: 1_760_000_000,
};

/**
 * Replays a recorded Converse stream, as decoded events relayed in pieces of `chunkSize` bytes, each event read once,
 * through the translator as a `TransformStream`; returns what a chat client receives.
 */
export async function translateFixture(
  name: string,
  options: Partial<ConverseToChatStreamOptions> = {},
  chunkSize = 37,
): Promise<string> {
  const events = await readFixtureEvents(fixtures, name, parseConverseStreamEvent, chunkSize);
  const translated = await transformEvents(events, createConverseToChatTransformer({ ...streamOptions, ...options }));
  return translated.map(encodeChatStreamEvent).join('');
}

/** The translator driven event by event. */
export function converseToChat(options: Partial<ConverseToChatStreamOptions> = {}) {
  return eventByEvent(
    createConverseToChatTransformer({ ...streamOptions, ...options }),
    parseConverseStreamEvent,
    encodeChatStreamEvent,
  );
}
