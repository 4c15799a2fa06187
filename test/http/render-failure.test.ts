import { describe, expect, it } from 'vitest';
import { ClientGoneError, GatewayError, toGatewayError } from '../../shared/http/gateway-error.ts';
import { renderFailure } from '../../shared/http/render-error.ts';

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

  it('turns a throttling store into 503 store_unavailable wherever it happens', () => {
    for (const name of ['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']) {
      const error = toGatewayError(Object.assign(new Error('slow down'), { name }));
      expect(error).toMatchObject({ status: 503, code: 'store_unavailable', headers: { 'retry-after': '1' } });
    }
  });
});
