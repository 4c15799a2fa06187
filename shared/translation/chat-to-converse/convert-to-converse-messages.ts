import { badRequest } from '../../http/gateway-error.ts';
import type {
  ConverseAssistantBlock,
  ConverseMessage,
  ConverseReasoningBlock,
  ConverseTextBlock,
  ConverseUserBlock,
} from '../../wires/bedrock-converse/bedrock-converse-request.ts';
import type { ChatAssistantPart, ChatMessage, ChatToolCall } from '../../wires/openai-chat/openai-chat-request.ts';
import {
  type ChatThinkingBlockOut,
  signedThinkingBlocks,
} from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { isRecord } from '../../wires/parse-json.ts';
import { readCallId, upstreamCallId } from '../chat-to-messages/reasoning-in-call-id.ts';
import { converseTextBlocks, converseUserBlocks } from './convert-converse-content.ts';

export interface ConversePrompt {
  system: ConverseTextBlock[];
  messages: ConverseMessage[];
  /** Whether a turn holds a tool call or a tool result: Converse then requires the tools to be declared. */
  holdsToolTurns: boolean;
}

type Turn = { role: 'user'; content: ConverseUserBlock[] } | { role: 'assistant'; content: ConverseAssistantBlock[] };

/**
 * Chat messages → Converse's `system` and its alternating user and assistant messages.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
 *
 * - `system` and `developer` messages are gathered, in order, into `system`, wherever they stand.
 * - A `tool` message is a `toolResult` block in a user message; consecutive messages of one role (several tool
 *   results, a result and the user's next words) are merged into one, as Converse requires the roles to alternate,
 *   the results first.
 * - An assistant turn is its signed reasoning (as the upstream gave it), its text, and a `toolUse` block per call.
 */
export function convertToConversePrompt(chatMessages: readonly ChatMessage[]): ConversePrompt {
  const system: ConverseTextBlock[] = [];
  const turns: Turn[] = [];
  let holdsToolTurns = false;

  chatMessages.forEach((message, position) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...converseTextBlocks(message.content));
        return;
      case 'user':
        turns.push({ role: 'user', content: converseUserBlocks(message.content) });
        return;
      case 'tool':
        holdsToolTurns = true;
        turns.push({
          role: 'user',
          content: [
            {
              toolResult: {
                toolUseId: upstreamCallId(message.tool_call_id),
                content: converseTextBlocks(message.content),
              },
            },
          ],
        });
        return;
      case 'assistant':
        if (message.function_call !== undefined && message.function_call !== null) {
          throw badRequest(
            'unsupported_parameter',
            `messages.${position}.function_call is the deprecated form of tool calls; send tool_calls instead.`,
          );
        }
        if ((message.tool_calls ?? []).length > 0) holdsToolTurns = true;
        turns.push({ role: 'assistant', content: assistantBlocksOf(message, position) });
        return;
      default: {
        const unknownMessage: never = message;
        throw new Error(`unknown chat message ${JSON.stringify(unknownMessage)}`);
      }
    }
  });

  // Converse refuses a message without content; an empty one (`content: ""`) says nothing and is left out.
  const nonEmpty = turns.filter((turn) => turn.content.length > 0);
  if (nonEmpty.length === 0) {
    throw badRequest('invalid_request', 'messages must contain at least one user or assistant message with content.');
  }
  const messages = withoutTrailingWhitespace(mergeAdjacentTurns(nonEmpty).map(toolResultsFirst));
  return { system, messages, holdsToolTurns };
}

function mergeAdjacentTurns(turns: Turn[]): Turn[] {
  const merged: Turn[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last?.role === 'user' && turn.role === 'user') last.content.push(...turn.content);
    else if (last?.role === 'assistant' && turn.role === 'assistant') last.content.push(...turn.content);
    else merged.push({ ...turn, content: [...turn.content] } as Turn);
  }
  return merged;
}

function toolResultsFirst(turn: Turn): Turn {
  if (turn.role === 'assistant') return turn;
  const results = turn.content.filter((block) => 'toolResult' in block);
  const others = turn.content.filter((block) => !('toolResult' in block));
  return { role: 'user', content: [...results, ...others] };
}

/**
 * A conversation that ends with an assistant turn asks the model to continue it; Bedrock refuses that turn when its
 * last text ends in whitespace, so that whitespace is taken off (it changes nothing the model continues from).
 */
function withoutTrailingWhitespace(messages: Turn[]): ConverseMessage[] {
  const last = messages.at(-1);
  const lastBlock = last?.content.at(-1);
  if (last?.role === 'assistant' && lastBlock && 'text' in lastBlock) {
    const text = lastBlock.text.trimEnd();
    last.content[last.content.length - 1] = { text };
  }
  return messages;
}

function assistantBlocksOf(message: Extract<ChatMessage, { role: 'assistant' }>, position: number) {
  const blocks: ConverseAssistantBlock[] = [];
  // Reasoning goes back only as the upstream signed it: in `thinking_blocks`, else carried in the id of the turn's
  // first tool call (reasoning-in-call-id.ts). Plain `reasoning_content` is not sent back: Converse's reasoning
  // block is the signed one, and the models that sign nothing do not take their reasoning back.
  const stated = signedThinkingBlocks(message.thinking_blocks);
  const signed = stated.length > 0 ? stated : reasoningCarriedByCalls(message.tool_calls ?? []);
  blocks.push(...signed.map(reasoningBlockOf));
  if (typeof message.content === 'string') blocks.push(...converseTextBlocks(message.content));
  else if (message.content) blocks.push(...message.content.flatMap(assistantPartBlocks));
  if (message.refusal) blocks.push(...converseTextBlocks(message.refusal));
  for (const [callPosition, call] of (message.tool_calls ?? []).entries()) {
    blocks.push(toolUseBlockOf(call, `messages.${position}.tool_calls.${callPosition}`));
  }
  return blocks;
}

function assistantPartBlocks(part: ChatAssistantPart): ConverseTextBlock[] {
  switch (part.type) {
    case 'text':
      return converseTextBlocks(part.text);
    case 'refusal':
      return converseTextBlocks(part.refusal);
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown assistant part ${JSON.stringify(unknownPart)}`);
    }
  }
}

/** Chat carries arguments as a JSON string, Converse as an object; blank arguments (a call without any) mean `{}`. */
function toolUseBlockOf(call: ChatToolCall, where: string): ConverseAssistantBlock {
  const text = call.function.arguments;
  let input: unknown = {};
  if (text.trim().length > 0) {
    try {
      input = JSON.parse(text);
    } catch {
      input = undefined;
    }
  }
  if (!isRecord(input)) {
    throw badRequest(
      'invalid_tool_arguments',
      `${where}.function.arguments must be a JSON object encoded as a string (tool call ${call.id}).`,
    );
  }
  return { toolUse: { toolUseId: upstreamCallId(call.id), name: call.function.name, input } };
}

function reasoningCarriedByCalls(calls: readonly ChatToolCall[]): ChatThinkingBlockOut[] {
  for (const call of calls) {
    const { thinkingBlocks } = readCallId(call.id);
    if (thinkingBlocks.length > 0) return thinkingBlocks;
  }
  return [];
}

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningContentBlock.html */
function reasoningBlockOf(block: ChatThinkingBlockOut): ConverseReasoningBlock {
  if (block.type === 'redacted_thinking') return { reasoningContent: { redactedReasoning: { data: block.data } } };
  return { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } };
}
