import type { MessagesAnswer, MessagesContentBlock } from '../../wires/anthropic-messages/anthropic-messages-answer.ts';
import { usageReportOfMessagesUsage } from '../../wires/anthropic-messages/anthropic-messages-usage.ts';
import type { ChatCompletion, ChatToolCallOut } from '../../wires/openai-chat/openai-chat-answer.ts';
import type { ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { chatUsageOfReport } from '../../wires/openai-chat/openai-chat-usage.ts';
import { finishReasonOf } from './map-messages-stop-reason.ts';
import { callIdCarryingReasoning } from './reasoning-in-call-id.ts';

export interface ConvertMessagesAnswerOptions {
  /** The chat completion id (see `chatCompletionId`). */
  id: string;
  /** The model id as the client asked for it, not the upstream's name. */
  model: string;
  /** Unix seconds; now when not given. */
  created?: number;
}

/**
 * A messages-format answer → a `chat.completion`. Text blocks are joined into `content`; thinking goes to
 * `reasoning_content`, never into `content`, and the blocks themselves, signatures and redacted thinking
 * included, into `thinking_blocks` for the client to send back (openai-chat-thinking-blocks.ts), and into the id
 * of the first tool call for clients that drop that field (reasoning-in-call-id.ts); each `tool_use` becomes a tool
 * call whose arguments are the input as a JSON string.
 */
export function convertMessagesAnswerToChat(
  answer: MessagesAnswer,
  options: ConvertMessagesAnswerOptions,
): ChatCompletion {
  const blocks = answer.content ?? [];
  const text = blocks.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
  const reasoning = blocks.map((block) => (block.type === 'thinking' ? (block.thinking ?? '') : '')).join('');
  const thinkingBlocks = blocks.flatMap(thinkingBlockOf);
  const toolCalls = blocks
    .filter((block) => block.type === 'tool_use')
    .map((block, position) => toolCallOf(block, position, position === 0 ? thinkingBlocks : []));
  const hasText = blocks.some((block) => block.type === 'text');
  const usage = chatUsageOfReport(answer.usage ? usageReportOfMessagesUsage(answer.usage) : undefined);

  return {
    id: options.id,
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: hasText ? text : null,
          refusal: null,
          ...(reasoning.length > 0 ? { reasoning_content: reasoning } : {}),
          ...(thinkingBlocks.length > 0 ? { thinking_blocks: thinkingBlocks } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReasonOf(answer.stop_reason),
        logprobs: null,
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

/** A tool call; the first one carries the answer's signed reasoning in its id (reasoning-in-call-id.ts). */
function toolCallOf(
  block: MessagesContentBlock,
  position: number,
  carriedReasoning: readonly ChatThinkingBlockOut[],
): ChatToolCallOut {
  return {
    // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
    id: callIdCarryingReasoning(block.id ?? `call_${position}`, carriedReasoning),
    type: 'function',
    function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) },
  };
}

/**
 * A reasoning block for `thinking_blocks`, unchanged. A block without a signature (a compatible engine that signs
 * nothing) still goes back through `reasoning_content`, so it is not listed.
 */
export function thinkingBlockOf(block: MessagesContentBlock): ChatThinkingBlockOut[] {
  if (block.type === 'thinking' && block.signature) {
    return [{ type: 'thinking', thinking: block.thinking ?? '', signature: block.signature }];
  }
  if (block.type === 'redacted_thinking' && block.data) return [{ type: 'redacted_thinking', data: block.data }];
  return [];
}
