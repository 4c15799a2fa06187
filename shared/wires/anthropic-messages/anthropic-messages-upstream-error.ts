import { parseMessagesStreamEvent } from './anthropic-messages-stream-event.ts';

export interface AnthropicMessagesErrorDetails {
  message: string;
  /** The vendor's error type, such as `overloaded_error` or `invalid_request_error`. */
  type: string;
}

/**
 * Reads an upstream's error body or error event. `undefined` when the text is not that shape (a proxy's HTML
 * page, say), so the caller can fall back to the status alone.
 */
export function parseAnthropicMessagesError(text: string): AnthropicMessagesErrorDetails | undefined {
  const event = parseMessagesStreamEvent({ event: undefined, data: text });
  if (event?.type !== 'error' || !event.error) return undefined;
  const { type, message } = event.error;
  if (!type && !message) return undefined;
  return { message: message ?? 'The upstream provider returned an error.', type: type ?? 'api_error' };
}
