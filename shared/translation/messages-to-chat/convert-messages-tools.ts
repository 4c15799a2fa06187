import { badRequest } from '../../http/gateway-error.ts';
import {
  isCustomTool,
  type MessagesCustomToolIn,
  type MessagesToolChoiceIn,
  type MessagesToolIn,
} from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { ChatToolChoiceOut, ChatToolOut } from '../../wires/openai-chat/openai-chat-request.ts';

/**
 * The client's own tools as chat function tools. The tools the vendor defines (`web_search_…`, `bash_…`,
 * `text_editor_…`, `computer_…`...) are refused by name: the vendor runs them, or writes their definitions into
 * the prompt itself, and a chat upstream can do neither.
 */
export function convertMessagesTools(tools: readonly MessagesToolIn[]): ChatToolOut[] {
  return tools.map((tool, position) => {
    if (!isCustomTool(tool)) {
      throw badRequest(
        'unsupported_tool',
        `tools.${position} is the vendor-defined ${tool.type} tool, which this model's upstream (a chat-format connection) cannot run; send tools with a name and an input_schema.`,
      );
    }
    return functionToolOf(tool);
  });
}

function functionToolOf(tool: MessagesCustomToolIn): ChatToolOut {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.input_schema,
    },
  };
}

export interface ChatToolChoiceSettings {
  tool_choice?: ChatToolChoiceOut;
  parallel_tool_calls?: boolean;
}

/**
 * `tool_choice` in chat's form: `auto` → `"auto"`, `any` → `"required"`, `tool` → the named function, `none` →
 * `"none"`; `disable_parallel_tool_use` → `parallel_tool_calls: false`. Without tools it is left out: chat
 * upstreams refuse a choice with nothing to choose from.
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use
 */
export function convertMessagesToolChoice(
  choice: MessagesToolChoiceIn | undefined,
  hasTools: boolean,
): ChatToolChoiceSettings {
  if (choice === undefined || !hasTools) return {};
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel };
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool':
      if (!choice.name) throw badRequest('invalid_tool_choice', 'tool_choice of type "tool" must name the tool.');
      return { tool_choice: { type: 'function', function: { name: choice.name } }, ...parallel };
    default:
      throw badRequest(
        'invalid_tool_choice',
        `tool_choice of type "${choice.type}" is not known; send "auto", "any", "tool" or "none".`,
      );
  }
}
