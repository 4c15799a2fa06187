import { createChatToMessagesTransformer } from '../../../shared/translation/messages-to-chat/chat-to-messages-stream.ts';
import type { MessagesAnswerIdentity } from '../../../shared/translation/messages-to-chat/convert-from-chat-completion.ts';
import { encodeMessagesStreamEvent } from '../../../shared/wires/anthropic-messages/anthropic-messages-sse.ts';
import { parseChatStreamEvent } from '../../../shared/wires/openai-chat/openai-chat-stream-event.ts';
import { eventByEvent, parseSseText, readFixtureEvents, transformEvents } from '../../support/sse-fixtures.ts';

export const fixtures = 'translation/messages-to-chat';

export const identity: MessagesAnswerIdentity = { id: 'msg_req-1', model: 'acme/acme-1' };

/**
 * Replays a recorded chat stream as the relay does — its bytes split in pieces of `chunkSize`, each event read
 * once — through the translator as a `TransformStream`, and returns what a messages client receives.
 */
export async function translateFixture(name: string, chunkSize = 37): Promise<string> {
  const events = await readFixtureEvents(fixtures, name, parseChatStreamEvent, chunkSize);
  const translated = await transformEvents(events, createChatToMessagesTransformer(identity));
  return translated.map(encodeMessagesStreamEvent).join('');
}

/** The translator driven event by event: what each chat event, and the end, make the client receive. */
export function chatToMessages() {
  return eventByEvent(createChatToMessagesTransformer(identity), parseChatStreamEvent, encodeMessagesStreamEvent);
}

/** The events of messages SSE text: each one's name and its parsed data, which repeats the name as `type`. */
export function messagesEvents(sseText: string): { event: string | undefined; data: Record<string, unknown> }[] {
  return parseSseText(sseText).map((message) => ({ event: message.event, data: JSON.parse(message.data) }));
}
