import { describe, expect, it } from 'vitest';
import { outputAllowance } from '../../shared/accounting/output-allowance.ts';

/** Spec §8 accounting rule 1: the reservation's output part is capped by request, model and policy alike. */
const defaultCap = 4096;
const allowance = (
  requested: number | undefined,
  modelMaxOutput: number | null,
  policyMaxOutput: number | undefined,
  cap = defaultCap,
) => outputAllowance({ requested, modelMaxOutput, policyMaxOutput, defaultCap: cap });

const refusal = (status: number, code: string) => expect.objectContaining({ name: 'GatewayError', status, code });

describe('output allowance (spec §8 accounting rule 1)', () => {
  it('takes the configured default when neither the request, the model nor the policy states a maximum', () => {
    expect(allowance(undefined, null, undefined)).toBe(defaultCap);
    expect(allowance(undefined, null, undefined, 123)).toBe(123);
  });

  it('takes the one cap that is stated, even when it is above the default', () => {
    expect(allowance(100, null, undefined)).toBe(100);
    expect(allowance(20_000, null, undefined)).toBe(20_000);
    expect(allowance(undefined, 32_768, undefined)).toBe(32_768);
    expect(allowance(undefined, null, 50)).toBe(50);
    expect(allowance(undefined, null, 9_000)).toBe(9_000);
  });

  it('takes the smallest of the stated caps, whichever of them it is', () => {
    // [requested, model, policy, smallest]; each request is within the model's and the policy's maximum.
    const cases: [number | undefined, number | null, number | undefined, number][] = [
      [100, 32_768, 500, 100],
      [400, 32_768, 450, 400],
      [undefined, 300, 500, 300],
      [undefined, 32_768, 1_000, 1_000],
      [undefined, 700, 1_000, 700],
      [2_000, null, 3_000, 2_000],
      [1_000, 1_500, undefined, 1_000],
      [undefined, 1_500, undefined, 1_500],
      [1, 1, 1, 1],
    ];
    for (const [requested, model, policy, smallest] of cases) {
      expect(allowance(requested, model, policy), JSON.stringify({ requested, model, policy })).toBe(smallest);
    }
  });

  it('accepts a request for exactly the policy`s or the model`s maximum', () => {
    expect(allowance(500, null, 500)).toBe(500);
    expect(allowance(32_768, 32_768, undefined)).toBe(32_768);
    expect(allowance(32_768, 32_768, 32_768)).toBe(32_768);
  });

  it('refuses a request above the policy`s maximum with 403 output_policy_denied (spec §5 rule 7)', () => {
    expect(() => allowance(501, null, 500)).toThrow(refusal(403, 'output_policy_denied'));
    expect(() => allowance(501, 32_768, 500)).toThrow(refusal(403, 'output_policy_denied'));
  });

  it('refuses a request above the model`s maximum with 400 max_output_exceeded', () => {
    expect(() => allowance(32_769, 32_768, undefined)).toThrow(refusal(400, 'max_output_exceeded'));
    expect(() => allowance(32_769, 32_768, 40_000)).toThrow(refusal(400, 'max_output_exceeded'));
  });

  it('names the policy (403) when a request is above both the policy and the model', () => {
    expect(() => allowance(40_000, 32_768, 1_000)).toThrow(refusal(403, 'output_policy_denied'));
  });
});
