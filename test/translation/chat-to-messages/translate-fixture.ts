import { expect } from 'vitest';
import { GatewayError } from '../../../shared/http/gateway-error.ts';
import {
  createMessagesToChatTransformer,
  type MessagesToChatStreamOptions,
} from '../../../shared/translation/chat-to-messages/messages-to-chat-stream.ts';
import { parseMessagesStreamEvent } from '../../../shared/wires/anthropic-messages/anthropic-messages-stream-event.ts';
import { encodeChatStreamEvent } from '../../../shared/wires/openai-chat/openai-chat-sse.ts';
import { eventByEvent, parseSseText, readFixtureEvents, transformEvents } from '../../support/sse-fixtures.ts';

export const fixtures = 'translation/chat-to-messages';

export const streamOptions: MessagesToChatStreamOptions = {
  id: 'chatcmpl-req-1',
  model: 'alpha/alpha-k2.7-code',
  includeUsage: false,
  created: 1_760_000_000,
};

/**
 * Replays a recorded messages stream as the relay does — its bytes split in pieces of `chunkSize`, each event
 * read once — through the translator as a `TransformStream`, and returns what a chat client receives.
 */
export async function translateFixture(
  name: string,
  options: Partial<MessagesToChatStreamOptions> = {},
  chunkSize = 37,
): Promise<string> {
  const events = await readFixtureEvents(fixtures, name, parseMessagesStreamEvent, chunkSize);
  const translated = await transformEvents(events, createMessagesToChatTransformer({ ...streamOptions, ...options }));
  return translated.map(encodeChatStreamEvent).join('');
}

/** The translator driven event by event: what each upstream event, and the end, make the client receive. */
export function messagesToChat(options: Partial<MessagesToChatStreamOptions> = {}) {
  return eventByEvent(
    createMessagesToChatTransformer({ ...streamOptions, ...options }),
    parseMessagesStreamEvent,
    encodeChatStreamEvent,
  );
}

/** The `data:` payloads of chat SSE text, each parsed as JSON, except the closing `[DONE]`. */
export function chatPayloads(sseText: string): unknown[] {
  return parseSseText(sseText).map((event) => (event.data === '[DONE]' ? '[DONE]' : JSON.parse(event.data)));
}

export function expectGatewayError(run: () => unknown, status: number, code: string): GatewayError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  if (!(caught instanceof GatewayError)) throw new Error(`expected a GatewayError ${code}, got ${String(caught)}`);
  expect({ status: caught.status, code: caught.code }).toEqual({ status, code });
  return caught;
}
