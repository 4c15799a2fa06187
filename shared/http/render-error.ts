import { logger } from '../observability/logger.ts';
import { anthropicErrorBody } from '../wires/anthropic-messages/anthropic-messages-error.ts';
import { geminiErrorBody } from '../wires/gemini/gemini-error.ts';
import { openaiErrorBody } from '../wires/openai-chat/openai-chat-error.ts';
import type { ErrorEnvelope } from '../wires/wire-names.ts';
import { ClientGoneError, GatewayError, toGatewayError } from './gateway-error.ts';

export interface JsonResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Renders a gateway error in the envelope the caller's SDK parses, so each official SDK raises its own typed
 * error with our message, and the machine-readable code is always present.
 */
export function renderError(error: GatewayError, envelope: ErrorEnvelope): JsonResponse {
  return {
    statusCode: error.status,
    headers: { 'content-type': 'application/json', ...error.headers },
    body: JSON.stringify(errorBody(error, envelope)),
  };
}

/** Each envelope is described by its wire, in `shared/wires/<wire>/`. */
function errorBody(error: GatewayError, envelope: ErrorEnvelope): unknown {
  switch (envelope) {
    case 'openai':
      return openaiErrorBody(error);
    case 'anthropic':
      return anthropicErrorBody(error);
    case 'gemini':
      return geminiErrorBody(error);
    default: {
      const unknownEnvelope: never = envelope;
      throw new Error(`unknown envelope ${String(unknownEnvelope)}`);
    }
  }
}

/**
 * The one way a handler answers a failure: nothing for a caller that went away (499, which no client sees), the
 * gateway's own error in the caller's envelope otherwise, with every 5xx logged (never a body or a key). Never
 * throws: if the failure itself cannot be read or rendered (an error whose properties throw, an envelope no
 * renderer knows), the answer is the last-resort 500 (`lastResortFailure`), so a handler always has one.
 */
export function renderFailure(
  error: unknown,
  envelope: ErrorEnvelope,
  context: { operation: string; requestId?: string | undefined },
): JsonResponse {
  try {
    if (error instanceof ClientGoneError) return { statusCode: 499, headers: {}, body: '' };
    const gatewayError = toGatewayError(error);
    const details = { requestId: context.requestId, code: gatewayError.code, error };
    // An upstream that failed is the provider's fault, worth a warning; any other 5xx is the gateway's own.
    if (gatewayError.type === 'upstream_error') logger.warn(`${context.operation} failed upstream`, details);
    else if (gatewayError.status >= 500) logger.error(`${context.operation} failed`, details);
    return renderError(gatewayError, envelope);
  } catch (renderingFault) {
    return lastResortFailure(envelope, { ...context, renderingFault });
  }
}

const internalError = new GatewayError(500, 'internal_error', 'The gateway failed to handle the request.');

/** Rendered once, when the module loads: the last resort renders nothing that could fail. */
const lastResortBodies: Readonly<Record<ErrorEnvelope, string>> = {
  openai: JSON.stringify(errorBody(internalError, 'openai')),
  anthropic: JSON.stringify(errorBody(internalError, 'anthropic')),
  gemini: JSON.stringify(errorBody(internalError, 'gemini')),
};

/**
 * The answer when rendering a failure failed: 500 `internal_error` in the caller's envelope (OpenAI's for an
 * envelope no renderer knows), from bodies rendered in advance. Never throws, not even when logging does.
 */
export function lastResortFailure(
  envelope: ErrorEnvelope,
  context: { operation: string; requestId?: string | undefined; renderingFault: unknown },
): JsonResponse {
  try {
    logger.error(`${context.operation} failed, and so did rendering its failure`, {
      requestId: context.requestId,
      error: context.renderingFault,
    });
  } catch {
    // Nothing is left to tell it to; the answer below still goes out.
  }
  return {
    statusCode: 500,
    headers: { 'content-type': 'application/json' },
    body: Object.hasOwn(lastResortBodies, envelope) ? lastResortBodies[envelope] : lastResortBodies.openai,
  };
}
