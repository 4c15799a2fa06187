import { badRequest } from '../../http/gateway-error.ts';
import type { ChatToolChoiceOut, ChatToolOut } from '../../wires/openai-chat/openai-chat-request.ts';
import {
  isFunctionTool,
  type ResponsesFunctionTool,
  type ResponsesTool,
  type ResponsesToolChoiceInput,
} from '../../wires/openai-responses/openai-responses-request.ts';
import type { ResponsesToolChoice } from '../../wires/openai-responses/openai-responses-response.ts';

/**
 * Function tools only: hosted tools (web search, file search, code interpreter, MCP, custom tools) run on the
 * vendor's servers or need grammar support, and a chat upstream has neither, so they are refused by name.
 * https://platform.openai.com/docs/guides/tools
 */
export function functionToolsOf(tools: readonly ResponsesTool[]): ResponsesFunctionTool[] {
  return tools.map((tool, position) => {
    if (isFunctionTool(tool)) return tool;
    throw badRequest(
      'unsupported_tool',
      `tools.${position} is a tool of type ${tool.type}, which this model cannot use; send function tools only.`,
    );
  });
}

/** The Responses form is flat (`{type, name, parameters}`); chat nests the definition under `function`. */
export function convertTools(tools: readonly ResponsesFunctionTool[]): ChatToolOut[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.parameters ? { parameters: tool.parameters } : {}),
      ...(tool.strict != null ? { strict: tool.strict } : {}),
    },
  }));
}

/**
 * The modes and the named function, the forms chat has too. `allowed_tools` and hosted-tool choices have no
 * chat counterpart. Whether the route accepts a forced choice is decided later, by the route (the messages
 * route refuses `required` and named functions in thinking mode).
 * https://platform.openai.com/docs/api-reference/responses/create#responses_create-tool_choice
 */
export function readToolChoice(
  toolChoice: ResponsesToolChoiceInput | null | undefined,
): ResponsesToolChoice | undefined {
  if (toolChoice === undefined || toolChoice === null) return undefined;
  if (typeof toolChoice === 'string') {
    switch (toolChoice) {
      case 'auto':
      case 'none':
      case 'required':
        return toolChoice;
      default:
        throw badRequest(
          'invalid_tool_choice',
          `tool_choice "${toolChoice}" is not known; send "auto", "none", "required" or {"type": "function", "name": ...}.`,
        );
    }
  }
  if (toolChoice.type !== 'function') {
    throw badRequest(
      'unsupported_tool_choice',
      `tool_choice of type "${toolChoice.type}" is not supported for this model; send "auto", "none", "required" or {"type": "function", "name": ...}.`,
    );
  }
  if (!toolChoice.name) {
    throw badRequest('invalid_tool_choice', 'tool_choice of type "function" needs the name of the function.');
  }
  return { type: 'function', name: toolChoice.name };
}

export function convertToolChoice(toolChoice: ResponsesToolChoice): ChatToolChoiceOut {
  return typeof toolChoice === 'string' ? toolChoice : { type: 'function', function: { name: toolChoice.name } };
}
