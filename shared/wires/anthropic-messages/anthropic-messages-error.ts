import { parseJson } from '../parse-json.ts';
import { anthropicMessagesErrorBodySchema } from './anthropic-messages-api.ts';

export interface AnthropicMessagesErrorDetails {
  message: string;
  /** The vendor's error type, such as `overloaded_error` or `invalid_request_error`. */
  type: string;
}

/**
 * Reads `{type:'error', error:{type, message}}`, the shape of both an error response body and a mid-stream
 * `error` event. `undefined` when the text is not that shape (a proxy's HTML page, say), so the caller can
 * fall back to the status alone.
 */
export function parseAnthropicMessagesError(text: string): AnthropicMessagesErrorDetails | undefined {
  const parsed = anthropicMessagesErrorBodySchema.safeParse(parseJson(text));
  if (!parsed.success) return undefined;
  const { type, message } = parsed.data.error;
  if (!type && !message) return undefined;
  return { message: message ?? 'The upstream provider returned an error.', type: type ?? 'api_error' };
}
