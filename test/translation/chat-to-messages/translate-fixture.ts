import { expect } from 'vitest';
import { GatewayError } from '../../../shared/http/gateway-error.ts';
import {
  createMessagesToChatStreamTransform,
  type MessagesToChatStreamOptions,
} from '../../../shared/translation/chat-to-messages/messages-to-chat-stream.ts';
import { parseSseFixture, parseSseText } from '../../support/sse-fixtures.ts';

export const wire = 'translation/chat-to-messages';

export const streamOptions: MessagesToChatStreamOptions = {
  id: 'chatcmpl-req-1',
  model: 'alpha/alpha-k2.7-code',
  includeUsage: false,
  created: 1_760_000_000,
};

/** Replays a recorded messages stream through the transform, as the relay would, and returns the chat SSE text. */
export async function translateFixture(name: string, options: Partial<MessagesToChatStreamOptions> = {}) {
  const transform = createMessagesToChatStreamTransform({ ...streamOptions, ...options });
  let text = '';
  for (const event of await parseSseFixture(wire, name)) text += transform.push(event);
  return text + transform.end();
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
