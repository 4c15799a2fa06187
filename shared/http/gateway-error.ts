import type { AdmissionRefusal } from '../store/admission.ts';
import { StoreError } from '../store/store-errors.ts';
import { type FailureAnswer, refusalAnswer, storeFailureAnswer } from './store-failures.ts';

/**
 * The one error type of the gateway. Every refusal the gateway itself makes is a GatewayError with an HTTP
 * status and a machine-readable code; renderers put it into the envelope of the caller's wire format.
 * Upstream errors are not GatewayErrors: they are relayed with the upstream's own status and body.
 */
export type GatewayErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'upstream_error'
  | 'api_error';

export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: GatewayErrorType;
  /** Extra response headers, such as `retry-after` on 429. */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.code = code;
    this.type = errorTypeForStatus(status);
    this.headers = options.headers ?? {};
  }
}

function errorTypeForStatus(status: number): GatewayErrorType {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 502:
    case 504:
      return 'upstream_error';
    default:
      return 'api_error';
  }
}

export const badRequest = (code: string, message: string) => new GatewayError(400, code, message);
export const unauthorized = (code: string, message: string) => new GatewayError(401, code, message);
export const forbidden = (code: string, message: string) => new GatewayError(403, code, message);
export const notFound = (code: string, message: string) => new GatewayError(404, code, message);

/** The caller went away before the answer: there is nobody to send an error to. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'ClientGoneError';
  }
}

/** A refusal of admission (or of authentication, for the same reasons), in HTTP terms. */
export function refusalError(refusal: AdmissionRefusal): GatewayError {
  return fromAnswer(refusalAnswer(refusal));
}

function fromAnswer(answer: FailureAnswer, cause?: unknown): GatewayError {
  return new GatewayError(answer.status, answer.code, answer.message, {
    cause,
    ...(answer.headers ? { headers: answer.headers } : {}),
  });
}

/**
 * A GatewayError as it is; a store failure as the domain error says (a refusal its 401, 403 or 429, a store that
 * is throttling a 503 the caller may retry, wherever in the request it happened); anything else an internal
 * fault whose details stay in the log, never in the answer.
 */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof StoreError) return fromAnswer(storeFailureAnswer(error), error);
  return new GatewayError(500, 'internal_error', 'The gateway failed to handle the request.', { cause: error });
}
