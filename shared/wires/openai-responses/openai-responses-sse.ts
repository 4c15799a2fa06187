import { formatSseEvent } from '../../sse/format-sse-event.ts';
import type { ResponsesStreamEventOut } from './openai-responses-stream-event.ts';

/** Each event is named by its type, as the vendor names them, so clients may dispatch on `event:` or on `type`. */
export function encodeResponsesStreamEvent(event: ResponsesStreamEventOut): string {
  return formatSseEvent({ event: event.type, data: JSON.stringify(event) });
}
