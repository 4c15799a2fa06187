import type { GatewayError } from '../../http/gateway-error.ts';
import type { GeminiStreamEvent } from './gemini-stream-event.ts';

/**
 * The generate-content error envelope, `{error:{code, message, status}}`, with the gateway's machine-readable code
 * as `reason`. https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
export function geminiErrorBody(error: GatewayError) {
  return {
    error: { code: error.status, message: error.message, status: geminiStatus(error.status), reason: error.code },
  };
}

/** google.rpc.Code names, as generate-content clients expect them. */
function geminiStatus(status: number): string {
  if (status === 400 || status === 413) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  if (status === 502 || status === 503) return 'UNAVAILABLE';
  return 'INTERNAL';
}

/** The vendor ends a failing stream with a chunk holding only the error, in the error response's own shape. */
export function geminiStreamErrorEvent(error: GatewayError): GeminiStreamEvent {
  return { type: 'error', error: geminiErrorBody(error).error };
}
