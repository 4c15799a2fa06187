import type { GatewayError } from '../../http/gateway-error.ts';
import type { MessagesStreamEventOut } from './anthropic-messages-stream-event.ts';

/**
 * The messages-format error envelope, `{type:'error', error:{type, message}}`, for both an error response and the
 * `error` event that ends a failing stream; the gateway adds its machine-readable `code`.
 * https://docs.anthropic.com/en/api/errors
 */
export function anthropicErrorBody(error: GatewayError) {
  return { type: 'error' as const, error: { type: error.type, message: error.message, code: error.code } };
}

/** The vendor's mid-stream error: an `error` event carrying the same body as an error response. */
export function messagesStreamErrorEvent(error: GatewayError): MessagesStreamEventOut {
  return anthropicErrorBody(error);
}
