import type { GatewayError } from '../../http/gateway-error.ts';
import type { ResponsesStreamEventOut } from './openai-responses-stream-event.ts';

/**
 * The Responses stream's own error event: flat, `code` and `message` on the event itself. An error response is
 * in the OpenAI envelope, as chat's (`openaiErrorBody`).
 */
export function responsesStreamErrorEvent(error: GatewayError): ResponsesStreamEventOut {
  return { type: 'error', code: error.code, message: error.message, param: null };
}
