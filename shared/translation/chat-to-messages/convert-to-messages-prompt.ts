import { badRequest } from '../../http/gateway-error.ts';
import type {
  MessagesAssistantBlock,
  MessagesRedactedThinkingBlock,
  MessagesTextBlock,
  MessagesThinkingBlock,
  MessagesToolUseBlock,
  MessagesTurn,
} from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { ChatAssistantPart, ChatMessage, ChatToolCall } from '../../wires/openai-chat/openai-chat-request.ts';
import type { ChatThinkingBlockIn, ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { isRecord } from '../../wires/parse-json.ts';
import { textBlocksOf, userBlocksOf } from './convert-content-parts.ts';
import { readCallId, upstreamCallId } from './reasoning-in-call-id.ts';

export interface MessagesPrompt {
  system: MessagesTextBlock[];
  messages: MessagesTurn[];
}

/**
 * Chat messages → the messages format's top-level `system` and alternating user/assistant turns.
 *
 * - `system` and `developer` messages are gathered, in order, into `system`, wherever they stand: the format
 *   has one system prompt, and refusing a mid-conversation instruction would break clients that add them.
 * - `tool` results become `tool_result` blocks of a user turn, and consecutive messages of one role are
 *   merged, because the format requires user and assistant turns to alternate.
 * - In a merged user turn the tool results come first: the format refuses text before a `tool_result`.
 */
export function convertToMessagesPrompt(chatMessages: readonly ChatMessage[]): MessagesPrompt {
  const system: MessagesTextBlock[] = [];
  const turns: MessagesTurn[] = [];

  chatMessages.forEach((message, position) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocksOf(message.content));
        return;
      case 'user':
        turns.push({ role: 'user', content: userBlocksOf(message.content) });
        return;
      case 'tool':
        turns.push({
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: upstreamCallId(message.tool_call_id),
              content: toolResultContent(message),
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
        turns.push({ role: 'assistant', content: assistantBlocksOf(message, position) });
        return;
      default: {
        const unknownMessage: never = message;
        throw new Error(`unknown chat message ${JSON.stringify(unknownMessage)}`);
      }
    }
  });

  // Empty messages (`content: ""`, an assistant turn with nothing in it) are dropped: the format refuses them.
  const nonEmpty = turns.filter((turn) => turn.content.length > 0);
  if (nonEmpty.length === 0) {
    throw badRequest('invalid_request', 'messages must contain at least one user or assistant message with content.');
  }
  return { system, messages: mergeAdjacentTurns(nonEmpty).map(toolResultsFirst) };
}

/** Consecutive turns of one role, including those an empty message stood between, become one turn. */
function mergeAdjacentTurns(turns: MessagesTurn[]): MessagesTurn[] {
  const merged: MessagesTurn[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last?.role === 'user' && turn.role === 'user') last.content.push(...turn.content);
    else if (last?.role === 'assistant' && turn.role === 'assistant') last.content.push(...turn.content);
    else merged.push(turn);
  }
  return merged;
}

function toolResultsFirst(turn: MessagesTurn): MessagesTurn {
  if (turn.role === 'assistant') return turn;
  const results = turn.content.filter((block) => block.type === 'tool_result');
  const others = turn.content.filter((block) => block.type !== 'tool_result');
  return { role: 'user', content: [...results, ...others] };
}

function toolResultContent(message: Extract<ChatMessage, { role: 'tool' }>): string | MessagesTextBlock[] {
  if (typeof message.content === 'string') return message.content;
  return textBlocksOf(message.content);
}

function assistantBlocksOf(message: Extract<ChatMessage, { role: 'assistant' }>, position: number) {
  const blocks: MessagesAssistantBlock[] = [];
  // Reasoning goes first, as the format orders a turn: the upstream's signed blocks exactly as they came — in
  // `thinking_blocks`, else in the id of the turn's first tool call (reasoning-in-call-id.ts) — else the text of
  // `reasoning_content` (see MessagesThinkingBlock for why it is sent back).
  const signed =
    message.thinking_blocks && message.thinking_blocks.length > 0
      ? message.thinking_blocks
      : reasoningCarriedByCalls(message.tool_calls ?? []);
  if (signed.length > 0) {
    blocks.push(...signed.map(thinkingBlockOf));
  } else if (message.reasoning_content) {
    blocks.push({ type: 'thinking', thinking: message.reasoning_content });
  }
  if (typeof message.content === 'string') blocks.push(...textBlocksOf(message.content));
  else if (message.content) blocks.push(...message.content.flatMap(assistantPartBlocks));
  if (message.refusal) blocks.push({ type: 'text', text: message.refusal });
  for (const [callPosition, call] of (message.tool_calls ?? []).entries()) {
    blocks.push(toolUseBlockOf(call, `messages.${position}.tool_calls.${callPosition}`));
  }
  return blocks;
}

function assistantPartBlocks(part: ChatAssistantPart): MessagesTextBlock[] {
  switch (part.type) {
    case 'text':
      return textBlocksOf(part.text);
    case 'refusal':
      return textBlocksOf(part.refusal);
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown assistant part ${JSON.stringify(unknownPart)}`);
    }
  }
}

/**
 * Chat carries arguments as a JSON string, the messages format as an object. Models sometimes emit `""` for a
 * function without parameters and clients echo it back, so blank arguments mean `{}`.
 */
function toolUseBlockOf(call: ChatToolCall, where: string): MessagesToolUseBlock {
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
  return { type: 'tool_use', id: upstreamCallId(call.id), name: call.function.name, input };
}

/**
 * The signed reasoning the first of a turn's tool call ids to carry any holds; empty when none does. A carrier is
 * inflated only until one is found, and not at all when the turn states its `thinking_blocks`.
 */
function reasoningCarriedByCalls(calls: readonly ChatToolCall[]): ChatThinkingBlockOut[] {
  for (const call of calls) {
    const { thinkingBlocks } = readCallId(call.id);
    if (thinkingBlocks.length > 0) return thinkingBlocks;
  }
  return [];
}

/** A block of the `thinking_blocks` extension (openai-chat-thinking-blocks.ts), as the upstream gave it. */
function thinkingBlockOf(block: ChatThinkingBlockIn): MessagesThinkingBlock | MessagesRedactedThinkingBlock {
  if (block.type === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data };
  return block.signature
    ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
    : { type: 'thinking', thinking: block.thinking };
}
