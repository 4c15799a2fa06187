import { formatSseEvent } from '../../sse/format-sse-event.ts';
import type { GeminiStreamEvent } from './gemini-stream-event.ts';

/** A generate-content stream's events are unnamed `data:` lines, each a whole response object. */
export function encodeGeminiStreamEvent(event: GeminiStreamEvent): string {
  switch (event.type) {
    case 'chunk':
      return formatSseEvent({ data: JSON.stringify(event.chunk) });
    case 'error':
      return formatSseEvent({ data: JSON.stringify({ error: event.error }) });
    default: {
      const unknownEvent: never = event;
      throw new Error(`unknown generate-content stream event ${JSON.stringify(unknownEvent)}`);
    }
  }
}
