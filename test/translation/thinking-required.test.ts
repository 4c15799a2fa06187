import { describe, expect, it } from 'vitest';
import { assertThinkingNotSwitchedOff, thinkingOffSwitch } from '../../shared/translation/thinking-required.ts';
import { expectGatewayError } from './chat-to-messages/translate-fixture.ts';

describe('thinkingOffSwitch', () => {
  it('names nothing for requests that leave thinking on', () => {
    expect(thinkingOffSwitch({})).toBeUndefined();
    expect(thinkingOffSwitch({ thinking: { type: 'enabled' }, reasoning_effort: 'low' })).toBeUndefined();
    expect(thinkingOffSwitch({ enable_thinking: true, chat_template_kwargs: { thinking: true } })).toBeUndefined();
  });

  it('names the field that switches thinking off', () => {
    expect(thinkingOffSwitch({ thinking: { type: 'disabled' } })).toBe('thinking.type: "disabled"');
    expect(thinkingOffSwitch({ reasoning_effort: 'none' })).toBe('reasoning_effort: "none"');
  });
});

describe('assertThinkingNotSwitchedOff', () => {
  it('refuses every explicit switch that turns thinking off with thinking_required', () => {
    const offSwitches: Record<string, unknown>[] = [
      { thinking: { type: 'disabled' } },
      { thinking: false },
      { reasoning_effort: 'none' },
      { reasoning: { effort: 'none' } },
      { reasoning: { enabled: false } },
      { enable_thinking: false },
      { chat_template_kwargs: { thinking: false } },
      { chat_template_kwargs: { enable_thinking: false } },
    ];
    for (const offSwitch of offSwitches) {
      const error = expectGatewayError(() => assertThinkingNotSwitchedOff(offSwitch), 400, 'thinking_required');
      expect(error.message).toMatch(/requires thinking mode/);
    }
    // Lower efforts still think.
    expect(() => assertThinkingNotSwitchedOff({ reasoning_effort: 'minimal' })).not.toThrow();
  });
});
