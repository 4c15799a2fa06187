import type { SseMessage } from '../../../shared/sse/sse-event-splitter.ts';
import { composeTransformers } from '../../../shared/streams/event-transformer.ts';
import { createMessagesToChatTransformer } from '../../../shared/translation/chat-to-messages/messages-to-chat-stream.ts';
import { type ResponseIdentity, responseId } from '../../../shared/translation/responses-to-chat/build-response.ts';
import { createChatToResponsesTransformer } from '../../../shared/translation/responses-to-chat/chat-to-responses-stream.ts';
import { parseMessagesStreamEvent } from '../../../shared/wires/anthropic-messages/anthropic-messages-stream-event.ts';
import { parseChatStreamEvent } from '../../../shared/wires/openai-chat/openai-chat-stream-event.ts';
import { encodeResponsesStreamEvent } from '../../../shared/wires/openai-responses/openai-responses-sse.ts';
import { eventByEvent, parseSseText, readFixtureEvents, transformEvents } from '../../support/sse-fixtures.ts';

export const fixtures = 'translation/responses-to-chat';

export const identity: ResponseIdentity = {
  id: responseId('req-1'),
  model: 'alpha/alpha-k3',
  createdAt: 1_760_000_000,
};

/** The translator driven event by event: what each chat event, and the end, make the client receive. */
export function chatToResponses(overrides: Partial<ResponseIdentity> = {}) {
  return eventByEvent(
    createChatToResponsesTransformer({ ...identity, ...overrides }),
    parseChatStreamEvent,
    encodeResponsesStreamEvent,
  );
}

/** Chat stream events, each read as the relay reads it, through the translator; the Responses SSE text. */
export function translateEvents(messages: readonly SseMessage[], overrides: Partial<ResponseIdentity> = {}): string {
  const translator = chatToResponses(overrides);
  return messages.map((message) => translator.push(message)).join('') + translator.end();
}

/**
 * Replays a recorded chat stream as the relay does — its bytes split in pieces of `chunkSize`, each event read
 * once — through the translator as a `TransformStream`, and returns what a Responses client receives.
 */
export async function translateFixture(
  name: string,
  overrides: Partial<ResponseIdentity> = {},
  chunkSize = 37,
): Promise<string> {
  const events = await readFixtureEvents(fixtures, name, parseChatStreamEvent, chunkSize);
  const translated = await transformEvents(events, createChatToResponsesTransformer({ ...identity, ...overrides }));
  return translated.map(encodeResponsesStreamEvent).join('');
}

/**
 * A recorded messages stream through both hops of the Responses route to K2.7 (messages → chat → Responses),
 * composed as the relay composes them: the chat events between the hops stay typed, never written as text.
 */
export async function translateMessagesFixture(name: string): Promise<string> {
  const events = await readFixtureEvents('translation/chat-to-messages', name, parseMessagesStreamEvent);
  const bothHops = composeTransformers(
    createMessagesToChatTransformer({ id: 'chatcmpl-req-1', model: identity.model, includeUsage: true }),
    createChatToResponsesTransformer(identity),
  );
  return (await transformEvents(events, bothHops)).map(encodeResponsesStreamEvent).join('');
}

/** A chat stream event from its payload, as the relay's splitter hands it over. */
export function chatEvent(payload: unknown): SseMessage {
  return { event: undefined, data: typeof payload === 'string' ? payload : JSON.stringify(payload) };
}

/** A chat chunk with one choice. */
export function chatChunk(delta: Record<string, unknown>, finishReason: string | null = null): SseMessage {
  return chatEvent({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'k3',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

export interface ResponsesEventView {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

/** The events of Responses SSE text, each parsed, after checking that every frame's name is its `type`. */
export function responsesEvents(sseText: string): ResponsesEventView[] {
  return parseSseText(sseText).map((event) => {
    const payload = JSON.parse(event.data) as ResponsesEventView;
    if (event.event !== payload.type) throw new Error(`frame named ${event.event} carries a ${payload.type} event`);
    return payload;
  });
}

export const typesOf = (events: readonly ResponsesEventView[]) => events.map((event) => event.type);
