import { badRequest } from '../../http/gateway-error.ts';
import type { ChatToolChoiceOut, ChatToolOut } from '../../wires/openai-chat/openai-chat-request.ts';
import {
  type ResponsesCustomTool,
  type ResponsesFunctionTool,
  readTool,
} from '../../wires/openai-responses/openai-responses-input.ts';
import type { ResponsesToolChoiceInput } from '../../wires/openai-responses/openai-responses-request.ts';
import type {
  ResponsesCustomToolFormat,
  ResponsesToolChoice,
  ResponsesToolOut,
} from '../../wires/openai-responses/openai-responses-response.ts';

/**
 * The tools of a Responses request, in chat form: function tools as they are, custom tools (free-form text input,
 * such as Codex CLI's `apply_patch`) as functions of one string argument, `input`. Web search is left out: Codex CLI
 * offers it on every request, and a chat upstream has no search to run, so the model answers without it. Every other
 * built-in tool (file search, code interpreter, MCP, computer use, image generation, the hosted shell and
 * apply_patch...) is refused by name: the request is about what it would do, and no chat upstream can.
 * https://platform.openai.com/docs/guides/tools
 */
export interface ChatTools {
  tools: ChatToolOut[];
  /** The custom tools' names: a chat call of one of these is a `custom_tool_call` in the answer. */
  customToolNames: ReadonlySet<string>;
  /** The tools as the response repeats them. */
  echoed: ResponsesToolOut[];
}

/** The argument a custom tool's free-form input travels in, as chat tools take JSON arguments only. */
export const customToolInputArgument = 'input';

const webSearchTool = /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/;

export function convertTools(tools: readonly { type: string }[] | null | undefined): ChatTools {
  const converted: { tools: ChatToolOut[]; echoed: ResponsesToolOut[] } = { tools: [], echoed: [] };
  const customToolNames = new Set<string>();
  for (const [position, listed] of (tools ?? []).entries()) {
    const tool = readTool(listed, position);
    switch (tool.type) {
      case 'function':
        converted.tools.push(functionOf(tool));
        converted.echoed.push({
          type: 'function',
          name: tool.name,
          description: tool.description ?? null,
          parameters: tool.parameters ?? null,
          strict: tool.strict ?? null,
        });
        break;
      case 'custom':
        converted.tools.push(customFunctionOf(tool));
        converted.echoed.push({
          type: 'custom',
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          ...formatOf(tool),
        });
        customToolNames.add(tool.name);
        break;
      case 'hosted':
        if (webSearchTool.test(tool.toolType)) break;
        throw badRequest(
          'unsupported_tool',
          `tools.${position} is a built-in tool of type ${tool.toolType}, which this model cannot use; send function and custom tools only.`,
        );
      default: {
        const unknownTool: never = tool;
        throw new Error(`unknown tool ${JSON.stringify(unknownTool)}`);
      }
    }
  }
  return { ...converted, customToolNames };
}

/** The Responses form is flat (`{type, name, parameters}`); chat nests the definition under `function`. */
function functionOf(tool: ResponsesFunctionTool): ChatToolOut {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.parameters ? { parameters: tool.parameters } : {}),
      ...(tool.strict != null ? { strict: tool.strict } : {}),
    },
  };
}

/** The format as the response repeats it; one it does not know is left out rather than misstated. */
function formatOf(tool: ResponsesCustomTool): { format?: ResponsesCustomToolFormat } {
  const { format } = tool;
  if (format?.type === 'text') return { format: { type: 'text' } };
  const syntax = format?.syntax;
  if (format?.type === 'grammar' && (syntax === 'lark' || syntax === 'regex') && format.definition) {
    return { format: { type: 'grammar', syntax, definition: format.definition } };
  }
  return {};
}

/**
 * A custom tool as a function of one string. A grammar the tool's input must follow cannot constrain a chat
 * upstream's decoding, so it is given to the model in the argument's description instead.
 */
function customFunctionOf(tool: ResponsesCustomTool): ChatToolOut {
  const grammar =
    tool.format?.type === 'grammar' && tool.format.definition
      ? ` It must follow this ${tool.format.syntax ?? ''} grammar:\n${tool.format.definition}`
      : '';
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: {
        type: 'object',
        properties: {
          [customToolInputArgument]: {
            type: 'string',
            description: `The tool's whole input, as free-form text (not JSON).${grammar}`,
          },
        },
        required: [customToolInputArgument],
        additionalProperties: false,
      },
    },
  };
}

/**
 * The modes, and a named function or custom tool (both are chat functions here). `allowed_tools` and the
 * built-in tools' choices have no chat counterpart. Whether the route accepts a forced choice is decided later,
 * by the route (the messages route refuses `required` and named functions in thinking mode).
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
  if (toolChoice.type !== 'function' && toolChoice.type !== 'custom') {
    throw badRequest(
      'unsupported_tool_choice',
      `tool_choice of type "${toolChoice.type}" is not supported for this model; send "auto", "none", "required" or {"type": "function", "name": ...}.`,
    );
  }
  if (!toolChoice.name) {
    throw badRequest('invalid_tool_choice', `tool_choice of type "${toolChoice.type}" needs the name of the tool.`);
  }
  return { type: toolChoice.type, name: toolChoice.name };
}

export function convertToolChoice(toolChoice: ResponsesToolChoice): ChatToolChoiceOut {
  return typeof toolChoice === 'string' ? toolChoice : { type: 'function', function: { name: toolChoice.name } };
}
