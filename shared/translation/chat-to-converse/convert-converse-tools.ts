import { badRequest } from '../../http/gateway-error.ts';
import type { ConverseTool, ConverseToolChoice } from '../../wires/bedrock-converse/bedrock-converse-request.ts';
import type { ChatFunctionTool, ChatToolChoice } from '../../wires/openai-chat/openai-chat-request.ts';
import { isRecord } from '../../wires/parse-json.ts';

/** A function without parameters still needs an object schema upstream. */
const emptyInputSchema: Record<string, unknown> = { type: 'object', properties: {} };

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html */
export function convertConverseTools(tools: readonly ChatFunctionTool[]): ConverseTool[] {
  return tools.map(({ function: definition }) => ({
    toolSpec: {
      name: definition.name,
      ...(definition.description ? { description: definition.description } : {}),
      inputSchema: { json: definition.parameters ?? emptyInputSchema },
    },
  }));
}

/** What the client chose, read: `none` is kept apart, since Converse has no such choice. */
export type ChosenTools = { type: 'none' } | { type: 'choice'; choice: ConverseToolChoice | undefined };

const choiceAdvice = 'Send "auto", "none", "required" or {"type": "function", "function": {"name": ...}}.';

/**
 * Chat's `tool_choice` in Converse's form: `auto` → `{auto: {}}`, `required` → `{any: {}}`, a named function →
 * `{tool: {name}}`; no choice states none (Converse's default is `auto`). `none` has no Converse counterpart and is
 * returned as such for the request to leave the tools out. Only some model families take `any` and `tool`; the
 * others' refusal comes back from Bedrock as a 400 in the client's envelope.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html
 */
export function readConverseToolChoice(toolChoice: ChatToolChoice | null | undefined): ChosenTools {
  if (toolChoice === undefined || toolChoice === null) return { type: 'choice', choice: undefined };
  if (typeof toolChoice === 'string') {
    switch (toolChoice) {
      case 'auto':
        return { type: 'choice', choice: { auto: {} } };
      case 'required':
        return { type: 'choice', choice: { any: {} } };
      case 'none':
        return { type: 'none' };
      default:
        throw badRequest('invalid_tool_choice', `tool_choice "${toolChoice}" is not known. ${choiceAdvice}`);
    }
  }
  if (toolChoice.type === 'function') {
    const definition = isRecord(toolChoice.function) ? toolChoice.function : {};
    if (typeof definition.name === 'string' && definition.name.length > 0) {
      return { type: 'choice', choice: { tool: { name: definition.name } } };
    }
    throw badRequest('invalid_tool_choice', `tool_choice of type "function" must name it. ${choiceAdvice}`);
  }
  throw badRequest(
    'unsupported_tool_choice',
    `tool_choice of type "${toolChoice.type}" is not supported for this model. ${choiceAdvice}`,
  );
}
