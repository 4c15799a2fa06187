import type { GatewayError } from '../../http/gateway-error.ts';
import { type MessagesStreamEvent, parseMessagesStreamEvent } from './anthropic-messages-stream-event.ts';

/**
 * The messages-format error envelope, `{type:'error', error:{type, message}}`, for both an error response and the
 * `error` event that ends a failing stream; the gateway adds its machine-readable `code`.
 * https://docs.anthropic.com/en/api/errors
 */
export function anthropicErrorBody(error: GatewayError) {
  return { type: 'error' as const, error: { type: error.type, message: error.message, code: error.code } };
}

/** The vendor's mid-stream error: an `error` event carrying the same body as an error response. */
export function messagesStreamErrorEvent(error: GatewayError): MessagesStreamEvent {
  return anthropicErrorBody(error);
}

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
