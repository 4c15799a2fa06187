import { formatSseEvent } from '../../sse/format-sse-event.ts';
import type { MessagesStreamEventOut } from './anthropic-messages-stream-event.ts';

/** Every event of a messages stream is named by its `type`, which its data repeats. */
export function encodeMessagesStreamEvent(event: MessagesStreamEventOut): string {
  return formatSseEvent({ event: event.type, data: JSON.stringify(event) });
}
