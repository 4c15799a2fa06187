import { badRequest } from '../../http/gateway-error.ts';
import type { MessagesTool, MessagesToolChoice } from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { ChatFunctionTool, ChatToolChoice } from '../../wires/openai-chat/openai-chat-request.ts';

/** A function without parameters still needs an object schema upstream. */
const emptyInputSchema: Record<string, unknown> = { type: 'object', properties: {} };

export function convertTools(tools: readonly ChatFunctionTool[]): MessagesTool[] {
  return tools.map(({ function: definition }) => ({
    name: definition.name,
    ...(definition.description ? { description: definition.description } : {}),
    input_schema: definition.parameters ?? emptyInputSchema,
  }));
}

const useAutoAdvice =
  'Use tool_choice "auto" to let the model decide, and "none" after a tool result when no further call is wanted.';

function forcedToolChoice(form: string) {
  return badRequest(
    'forced_tool_choice_unsupported',
    `tool_choice ${form} is not supported: this model runs in thinking mode, which cannot be forced to call a tool. ${useAutoAdvice}`,
  );
}

/**
 * Only `auto` and `none` reach the K2.7 route: its thinking mode refuses forced tool use upstream (spec §4.4
 * rule 2), so `required` and named functions are refused here, before anything is reserved or sent.
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use
 */
export function convertToolChoice(
  toolChoice: ChatToolChoice | null | undefined,
  options: { hasTools: boolean; parallelToolCalls: boolean | null | undefined },
): MessagesToolChoice | undefined {
  const choice = readToolChoice(toolChoice);
  if (!options.hasTools) return undefined;
  if (choice === 'none') return { type: 'none' };
  // Without a choice the upstream default is `auto`; it is stated only to carry the parallel-call switch.
  if (options.parallelToolCalls === false) return { type: 'auto', disable_parallel_tool_use: true };
  return choice === 'auto' ? { type: 'auto' } : undefined;
}

function readToolChoice(toolChoice: ChatToolChoice | null | undefined): 'auto' | 'none' | undefined {
  if (toolChoice === undefined || toolChoice === null) return undefined;
  if (typeof toolChoice === 'string') {
    switch (toolChoice) {
      case 'auto':
      case 'none':
        return toolChoice;
      case 'required':
        throw forcedToolChoice('"required"');
      default:
        throw badRequest('invalid_tool_choice', `tool_choice "${toolChoice}" is not known. ${useAutoAdvice}`);
    }
  }
  switch (toolChoice.type) {
    case 'function':
    case 'custom':
      throw forcedToolChoice('naming a function');
    default:
      throw badRequest(
        'unsupported_tool_choice',
        `tool_choice of type "${toolChoice.type}" is not supported for this model. ${useAutoAdvice}`,
      );
  }
}
