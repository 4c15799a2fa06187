import { badRequest } from '../http/gateway-error.ts';
import { isRecord } from '../wires/parse-json.ts';

/**
 * The explicit "thinking off" switches that OpenAI-compatible clients send, named for the error message:
 * `thinking: {type: "disabled"}` (messages-style and GLM/Kimi-style APIs), `reasoning_effort: "none"`
 * (OpenAI), `reasoning: {effort: "none"}` or `{enabled: false}` (router-style), `enable_thinking: false`
 * (Qwen-style), `chat_template_kwargs.thinking` / `.enable_thinking` `false` (vLLM-style). Lower efforts such
 * as `minimal` still think, so they do not count.
 */
export function thinkingOffSwitch(body: Record<string, unknown>): string | undefined {
  const { thinking, reasoning, chat_template_kwargs: templateArguments } = body;
  if (thinking === false) return 'thinking: false';
  if (isRecord(thinking) && thinking.type === 'disabled') return 'thinking.type: "disabled"';
  if (body.reasoning_effort === 'none') return 'reasoning_effort: "none"';
  if (isRecord(reasoning) && reasoning.effort === 'none') return 'reasoning.effort: "none"';
  if (isRecord(reasoning) && reasoning.enabled === false) return 'reasoning.enabled: false';
  if (body.enable_thinking === false) return 'enable_thinking: false';
  if (isRecord(templateArguments)) {
    if (templateArguments.thinking === false) return 'chat_template_kwargs.thinking: false';
    if (templateArguments.enable_thinking === false) return 'chat_template_kwargs.enable_thinking: false';
  }
  return undefined;
}

/** Alpha models only run with thinking on (spec §4.4 rule 3), so a request that switches it off is refused. */
export function assertThinkingNotSwitchedOff(body: Record<string, unknown>): void {
  const offSwitch = thinkingOffSwitch(body);
  if (offSwitch === undefined) return;
  throw badRequest(
    'thinking_required',
    `This model requires thinking mode and it cannot be switched off: remove ${offSwitch} from the request.`,
  );
}
