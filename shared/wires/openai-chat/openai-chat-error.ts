import type { GatewayError } from '../../http/gateway-error.ts';
import type { ChatStreamEvent } from './openai-chat-stream-event.ts';

/**
 * The OpenAI error envelope, which Chat Completions, Responses and the gateway's own APIs answer errors in: the
 * SDK raises its typed error with our message, and `code` is the gateway's machine-readable code.
 * https://platform.openai.com/docs/guides/error-codes
 */
export function openaiErrorBody(error: { message: string; type: string; code: string | null }) {
  return { error: { message: error.message, type: error.type, code: error.code, param: null } };
}

/** A failing chat stream ends with a plain `data:` chunk holding the error response's own body. */
export function chatStreamErrorEvent(error: GatewayError): ChatStreamEvent {
  return { type: 'error', error: openaiErrorBody(error).error };
}
