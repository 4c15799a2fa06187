import type { AdmissionRefusal } from '../store/admission.ts';
import {
  AdmissionRefusedError,
  StoreConflictError,
  StoreCursorError,
  type StoreError,
  StoreNotFoundError,
  StoreUnavailableError,
  VersionConflictError,
} from '../store/store-errors.ts';

/** What the caller hears of a store failure: status, machine-readable code, message, extra headers. */
export interface FailureAnswer {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

const retryShortly = { 'retry-after': '1' };

/**
 * The answer to each admission refusal: 401 for the key, 403 for the member, 429 for a limit (with
 * `retry-after`). Authentication answers its own refusals of the same kinds with these too.
 */
export function refusalAnswer(refusal: AdmissionRefusal): FailureAnswer {
  const tooMany = (code: string, message: string): FailureAnswer => ({
    status: 429,
    code,
    message,
    headers: retryShortly,
  });
  switch (refusal.reason) {
    case 'invalid_key':
      return { status: 401, code: 'invalid_key', message: 'The API key is not valid.' };
    case 'key_revoked':
      return { status: 401, code: 'key_revoked', message: 'The API key has been revoked.' };
    case 'key_rotated':
      return { status: 401, code: 'key_rotated', message: 'The API key has been rotated; use its new secret.' };
    case 'member_disabled':
      return { status: 403, code: 'member_disabled', message: 'The member this key belongs to is disabled.' };
    case 'member_suspended':
      return { status: 403, code: 'member_suspended', message: 'The member this key belongs to is suspended.' };
    case 'reservation_too_large':
      return tooMany(
        'token_reservation_limit',
        `The request needs ${refusal.needed} tokens reserved; the daily allowance is ${refusal.limit}.`,
      );
    case 'token_allowance':
      return tooMany(
        'token_reservation_limit',
        `The daily token allowance is exhausted: ${refusal.used} of ${refusal.limit} used or reserved, ${refusal.needed} needed.`,
      );
    case 'rate':
      return tooMany(
        'rate_limit',
        refusal.scope === 'member'
          ? `The member's limit of ${refusal.limit} requests per minute is reached.`
          : `This key's limit of ${refusal.limit} requests per minute is reached.`,
      );
    case 'concurrency':
      return tooMany(
        'concurrency_limit',
        refusal.scope === 'member'
          ? `The member's limit of ${refusal.limit} concurrent requests is reached.`
          : `This key's limit of ${refusal.limit} concurrent requests is reached.`,
      );
    case 'holder_daily':
      return tooMany('holder_daily_limit', `The wallet's ${refusal.limit} holder requests for today (UTC) are used.`);
    case 'contention':
      return tooMany('admission_contention', 'The allowance is under heavy contention; try again.');
    case 'policy_changed':
      return tooMany('policy_changed', "The key's or member's policy changed during the request; try again.");
    default: {
      const unknownRefusal: never = refusal;
      throw new Error(`unknown admission refusal ${JSON.stringify(unknownRefusal)}`);
    }
  }
}

/** The answer to a store failure: the domain's error in HTTP terms. */
export function storeFailureAnswer(error: StoreError): FailureAnswer {
  if (error instanceof AdmissionRefusedError) return refusalAnswer(error.refusal);
  if (error instanceof StoreNotFoundError) {
    return { status: 404, code: `${error.entity}_not_found`, message: error.message };
  }
  if (error instanceof StoreConflictError) {
    // A rotation that lost a race, or of a revoked key, is the caller's to retry or give up: 400, as before.
    return error.reason === 'exists'
      ? { status: 409, code: 'already_exists', message: error.message }
      : { status: 400, code: error.reason, message: error.message };
  }
  if (error instanceof StoreCursorError) return { status: 400, code: 'invalid_cursor', message: error.message };
  if (error instanceof VersionConflictError) {
    return { status: 409, code: 'version_conflict', message: error.message };
  }
  if (error instanceof StoreUnavailableError) {
    return {
      status: 503,
      code: 'store_unavailable',
      message: "The gateway's store is busy; try again shortly.",
      headers: retryShortly,
    };
  }
  return { status: 500, code: 'internal_error', message: 'The gateway failed to handle the request.' };
}
