import { describe, expect, it } from 'vitest';
import { catalogModels } from '../../shared/catalog/catalog-data.ts';
import { applyReasoningEffort, resolveReasoningEffort } from '../../shared/translation/reasoning-effort.ts';
import { expectGatewayError } from './chat-to-messages/translate-fixture.ts';

function catalogEntry(publicId: string) {
  const entry = catalogModels.find((model) => model.publicId === publicId);
  if (!entry) throw new Error(`no catalog entry ${publicId}`);
  return entry;
}

const k3 = catalogEntry('alpha/alpha-k3');
const beta = catalogEntry('beta/beta-4-31b');
const chatBody = { model: 'alpha/alpha-k3', messages: [{ role: 'user', content: 'Hi' }] };

describe('applyReasoningEffort (K3, chat-completions-style upstream)', () => {
  it('passes each supported effort as chat reasoning_effort, unchanged', () => {
    for (const effort of ['low', 'high', 'max']) {
      expect(applyReasoningEffort({ ...chatBody, reasoning_effort: effort }, k3)).toEqual({
        ...chatBody,
        reasoning_effort: effort,
      });
    }
  });

  it('writes out the default high when the client sends none', () => {
    expect(applyReasoningEffort(chatBody, k3)).toEqual({ ...chatBody, reasoning_effort: 'high' });
    expect(applyReasoningEffort({ ...chatBody, reasoning_effort: null }, k3).reasoning_effort).toBe('high');
  });

  it('moves the Responses form reasoning.effort into reasoning_effort, keeping other reasoning fields', () => {
    expect(applyReasoningEffort({ ...chatBody, reasoning: { effort: 'low' } }, k3)).toEqual({
      ...chatBody,
      reasoning_effort: 'low',
    });
    expect(applyReasoningEffort({ ...chatBody, reasoning: { effort: 'max', summary: 'auto' } }, k3)).toEqual({
      ...chatBody,
      reasoning_effort: 'max',
      reasoning: { summary: 'auto' },
    });
  });

  it('refuses other values, naming the supported ones, and forms that disagree', () => {
    for (const effort of ['medium', 'minimal', 'xhigh', 'HIGH', 3]) {
      const error = expectGatewayError(
        () => applyReasoningEffort({ ...chatBody, reasoning_effort: effort }, k3),
        400,
        'invalid_reasoning_effort',
      );
      expect(error.message).toContain('"low", "high", "max"');
    }
    expectGatewayError(
      () => applyReasoningEffort({ ...chatBody, reasoning: { effort: 'medium' } }, k3),
      400,
      'invalid_reasoning_effort',
    );
    expectGatewayError(
      () => applyReasoningEffort({ ...chatBody, reasoning_effort: 'low', reasoning: { effort: 'max' } }, k3),
      400,
      'conflicting_reasoning_effort',
    );
  });

  it('leaves the body of a model without reasoning effort untouched', () => {
    const body = { ...chatBody, model: 'beta/beta-4-31b', reasoning_effort: 'medium' };
    expect(applyReasoningEffort(body, beta)).toBe(body);
    expect(resolveReasoningEffort(body, beta)).toBeUndefined();
  });
});
