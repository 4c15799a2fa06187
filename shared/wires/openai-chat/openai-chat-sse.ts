import { formatSseEvent } from '../../sse/format-sse-event.ts';
import type { ChatStreamEvent } from './openai-chat-stream-event.ts';

/** A chat stream's events are unnamed `data:` lines; the stream ends with `data: [DONE]`. */
export function encodeChatStreamEvent(event: ChatStreamEvent): string {
  switch (event.type) {
    case 'chunk':
      return formatSseEvent({ data: JSON.stringify(event.chunk) });
    case 'error':
      return formatSseEvent({ data: JSON.stringify({ error: event.error }) });
    case 'done':
      return formatSseEvent({ data: '[DONE]' });
    default: {
      const unknownEvent: never = event;
      throw new Error(`unknown chat stream event ${JSON.stringify(unknownEvent)}`);
    }
  }
}
