import { badRequest } from '../../http/gateway-error.ts';
import type { MessagesTool, MessagesToolChoice } from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { ChatFunctionTool, ChatToolChoice } from '../../wires/openai-chat/openai-chat-request.ts';
import { isRecord } from '../../wires/parse-json.ts';

/** A function without parameters still needs an object schema upstream. */
const emptyInputSchema: Record<string, unknown> = { type: 'object', properties: {} };

export function convertTools(tools: readonly ChatFunctionTool[]): MessagesTool[] {
  return tools.map(({ function: definition }) => ({
    name: definition.name,
    ...(definition.description ? { description: definition.description } : {}),
    input_schema: definition.parameters ?? emptyInputSchema,
  }));
}

/**
 * Chat's `tool_choice` in the messages form: `auto`, `none`, `required` → `any`, a named function → `tool`; the
 * parallel-call switch rides on it. Whether the model may be forced to call a tool is the route's rule, applied
 * to the request in messages form (thinking-mode.ts).
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use
 */
export function convertToolChoice(
  toolChoice: ChatToolChoice | null | undefined,
  options: { hasTools: boolean; parallelToolCalls: boolean | null | undefined },
): MessagesToolChoice | undefined {
  const choice = readToolChoice(toolChoice);
  if (!options.hasTools) return undefined;
  const parallel = options.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case 'none':
      return { type: 'none' };
    case 'any':
      return { type: 'any', ...parallel };
    case 'tool':
      return { type: 'tool', name: choice.name, ...parallel };
    case 'auto':
      return { type: 'auto', ...parallel };
    case undefined:
      // Without a choice the upstream default is `auto`; it is stated only to carry the parallel-call switch.
      return options.parallelToolCalls === false ? { type: 'auto', disable_parallel_tool_use: true } : undefined;
    default: {
      const unknownChoice: never = choice;
      throw new Error(`unknown tool choice ${JSON.stringify(unknownChoice)}`);
    }
  }
}

type ReadToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'any' } | { type: 'tool'; name: string };

const choiceAdvice = 'Send "auto", "none", "required" or {"type": "function", "function": {"name": ...}}.';

function readToolChoice(toolChoice: ChatToolChoice | null | undefined): ReadToolChoice | undefined {
  if (toolChoice === undefined || toolChoice === null) return undefined;
  if (typeof toolChoice === 'string') {
    switch (toolChoice) {
      case 'auto':
      case 'none':
        return { type: toolChoice };
      case 'required':
        return { type: 'any' };
      default:
        throw badRequest('invalid_tool_choice', `tool_choice "${toolChoice}" is not known. ${choiceAdvice}`);
    }
  }
  if (toolChoice.type === 'function') {
    const definition = isRecord(toolChoice.function) ? toolChoice.function : {};
    if (typeof definition.name === 'string' && definition.name.length > 0)
      return { type: 'tool', name: definition.name };
    throw badRequest('invalid_tool_choice', `tool_choice of type "function" must name it. ${choiceAdvice}`);
  }
  throw badRequest(
    'unsupported_tool_choice',
    `tool_choice of type "${toolChoice.type}" is not supported for this model. ${choiceAdvice}`,
  );
}
