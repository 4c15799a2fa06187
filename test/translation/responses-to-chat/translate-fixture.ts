import { createChatToResponsesStreamTransform } from '../../../shared/translation/responses-to-chat/chat-to-responses-stream.ts';
import { type ResponseIdentity, responseId } from '../../../shared/translation/responses-to-chat/responses-response.ts';
import type { StreamEvent } from '../../../shared/wires/usage-report.ts';
import { parseSseFixture, parseSseText } from '../../support/sse-fixtures.ts';

export const wire = 'translation/responses-to-chat';

export const identity: ResponseIdentity = {
  id: responseId('req-1'),
  model: 'alpha/alpha-k3',
  createdAt: 1_760_000_000,
};

/** Replays chat stream events through the transform, as the relay would, and returns the Responses SSE text. */
export function translateEvents(events: readonly StreamEvent[], overrides: Partial<ResponseIdentity> = {}): string {
  const transform = createChatToResponsesStreamTransform({ ...identity, ...overrides });
  let text = '';
  for (const event of events) text += transform.push(event);
  return text + transform.end();
}

/** Replays a recorded chat stream through the transform. */
export async function translateFixture(name: string, overrides: Partial<ResponseIdentity> = {}): Promise<string> {
  return translateEvents(await parseSseFixture(wire, name), overrides);
}

/** A chat stream event from its payload, as the relay's parser hands it over. */
export function chatEvent(payload: unknown): StreamEvent {
  return { event: undefined, data: typeof payload === 'string' ? payload : JSON.stringify(payload) };
}

/** A chat chunk with one choice. */
export function chatChunk(delta: Record<string, unknown>, finishReason: string | null = null): StreamEvent {
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
