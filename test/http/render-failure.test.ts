import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientGoneError, GatewayError, toGatewayError } from '../../shared/http/gateway-error.ts';
import { renderFailure } from '../../shared/http/render-error.ts';
import { logger } from '../../shared/observability/logger.ts';
import type { AdmissionRefusal } from '../../shared/store/admission.ts';
import {
  AdmissionRefusedError,
  StoreConflictError,
  StoreNotFoundError,
  StoreUnavailableError,
} from '../../shared/store/store-errors.ts';
import type { ErrorEnvelope } from '../../shared/wires/wire-names.ts';

describe('renderFailure, the one way handlers answer a failure', () => {
  it('answers nothing (499) to a caller that went away, instead of a 500', () => {
    expect(renderFailure(new ClientGoneError(), 'openai', { operation: 'test' })).toEqual({
      statusCode: 499,
      headers: {},
      body: '',
    });
  });

  it('renders gateway errors in the caller`s envelope and hides internal faults', () => {
    const refused = renderFailure(new GatewayError(403, 'model_denied', 'no'), 'anthropic', { operation: 'test' });
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ type: 'error', error: { code: 'model_denied' } });
    const fault = renderFailure(new Error('secret detail'), 'openai', { operation: 'test' });
    expect(fault.statusCode).toBe(500);
    expect(fault.body).not.toContain('secret detail');
  });

  it('turns an unavailable store into 503 store_unavailable wherever it happens, naming no engine', () => {
    const error = toGatewayError(new StoreUnavailableError('throttled'));
    expect(error).toMatchObject({ status: 503, code: 'store_unavailable', headers: { 'retry-after': '1' } });
    // Engines translate their own errors (the store contract proves it); the HTTP layer knows none of them.
    expect(toGatewayError(Object.assign(new Error('slow down'), { name: 'ThrottlingException' })).status).toBe(500);
  });

  it('maps the store’s domain errors to statuses and codes', () => {
    expect(toGatewayError(new StoreNotFoundError('connection', 'No connection has the id x.'))).toMatchObject({
      status: 404,
      code: 'connection_not_found',
      message: 'No connection has the id x.',
    });
    expect(toGatewayError(new StoreConflictError('key_changed', 'raced'))).toMatchObject({
      status: 400,
      code: 'key_changed',
    });
    expect(toGatewayError(new StoreConflictError('exists', 'taken'))).toMatchObject({
      status: 409,
      code: 'already_exists',
    });
  });

  it.each([
    [{ reason: 'invalid_key' }, 401, 'invalid_key'],
    [{ reason: 'key_revoked' }, 401, 'key_revoked'],
    [{ reason: 'key_rotated' }, 401, 'key_rotated'],
    [{ reason: 'member_disabled' }, 403, 'member_disabled'],
    [{ reason: 'member_suspended' }, 403, 'member_suspended'],
    [{ reason: 'reservation_too_large', needed: 50, limit: 10 }, 429, 'token_reservation_limit'],
    [{ reason: 'token_allowance', used: 8, needed: 5, limit: 10 }, 429, 'token_reservation_limit'],
    [{ reason: 'rate', scope: 'key', limit: 3 }, 429, 'rate_limit'],
    [{ reason: 'concurrency', scope: 'member', limit: 2 }, 429, 'concurrency_limit'],
    [{ reason: 'holder_daily', limit: 10 }, 429, 'holder_daily_limit'],
    [{ reason: 'contention' }, 429, 'admission_contention'],
  ] satisfies [AdmissionRefusal, number, string][])('answers the refusal %o with %i %s', (refusal, status, code) => {
    const error = toGatewayError(new AdmissionRefusedError(refusal));
    expect(error).toMatchObject({ status, code });
    if (status === 429) expect(error.headers).toEqual({ 'retry-after': '1' });
  });
});

describe('renderFailure never throws', () => {
  afterEach(() => vi.restoreAllMocks());

  /** A thrown value that throws back at whoever looks at it: `instanceof` asks for its prototype. */
  const hostile = new Proxy(
    {},
    {
      getPrototypeOf() {
        throw new Error('do not look');
      },
      get() {
        throw new Error('do not look');
      },
    },
  );
  const lastResort = {
    openai: {
      error: {
        message: 'The gateway failed to handle the request.',
        type: 'api_error',
        code: 'internal_error',
        param: null,
      },
    },
    anthropic: {
      type: 'error',
      error: { type: 'api_error', message: 'The gateway failed to handle the request.', code: 'internal_error' },
    },
    gemini: {
      error: {
        code: 500,
        message: 'The gateway failed to handle the request.',
        status: 'INTERNAL',
        reason: 'internal_error',
      },
    },
  } satisfies Record<ErrorEnvelope, unknown>;

  it.each(Object.entries(lastResort))(
    'answers a failure that cannot be read with the last-resort 500 (%s)',
    (envelope, body) => {
      const answer = renderFailure(hostile, envelope as ErrorEnvelope, { operation: 'test' });
      expect(answer).toMatchObject({ statusCode: 500, headers: { 'content-type': 'application/json' } });
      expect(JSON.parse(answer.body)).toEqual(body);
    },
  );

  it('answers in the OpenAI envelope when the envelope is one no renderer knows', () => {
    const answer = renderFailure(new Error('fault'), 'xml' as ErrorEnvelope, { operation: 'test' });
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body)).toEqual(lastResort.openai);
    expect(renderFailure(new Error('fault'), 'constructor' as ErrorEnvelope, { operation: 'test' }).body).toBe(
      answer.body,
    );
  });

  it('still answers when the logger itself throws', () => {
    vi.spyOn(logger, 'error').mockImplementation(() => {
      throw new Error('log sink gone');
    });
    const answer = renderFailure(new Error('fault'), 'anthropic', { operation: 'test', requestId: 'req_1' });
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body)).toEqual(lastResort.anthropic);
  });
});
