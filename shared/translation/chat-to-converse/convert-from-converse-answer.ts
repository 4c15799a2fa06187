import type { ConverseAnswer, ConverseContentBlock } from '../../wires/bedrock-converse/bedrock-converse-answer.ts';
import { usageReportOfConverseUsage } from '../../wires/bedrock-converse/bedrock-converse-usage.ts';
import type { ChatCompletion, ChatToolCallOut } from '../../wires/openai-chat/openai-chat-answer.ts';
import type { ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { chatUsageOfReport } from '../../wires/openai-chat/openai-chat-usage.ts';
import { callIdCarryingReasoning } from '../chat-to-messages/reasoning-in-call-id.ts';
import { finishReasonOfConverse } from './map-converse-stop-reason.ts';

export interface ConvertConverseAnswerOptions {
  /** The chat completion id (see `chatCompletionId`). */
  id: string;
  /** The model id as the client asked for it, not Bedrock's. */
  model: string;
  /** Unix seconds. */
  created: number;
}

/**
 * A Converse answer → a `chat.completion`. Text blocks are joined into `content`; reasoning goes to
 * `reasoning_content`, and where the upstream signed it (or redacted it) the blocks also go into `thinking_blocks`
 * and the id of the first tool call, to be sent back unchanged (openai-chat-thinking-blocks.ts,
 * reasoning-in-call-id.ts); each `toolUse` becomes a tool call whose arguments are its input as a JSON string.
 */
export function convertConverseAnswerToChat(
  answer: ConverseAnswer,
  options: ConvertConverseAnswerOptions,
): ChatCompletion {
  const blocks = answer.output?.message?.content ?? [];
  const texts = blocks.flatMap((block) => (typeof block.text === 'string' ? [block.text] : []));
  const reasoning = blocks.map((block) => block.reasoningContent?.reasoningText?.text ?? '').join('');
  const thinkingBlocks = blocks.flatMap(thinkingBlockOf);
  const toolCalls = blocks
    .filter((block) => block.toolUse)
    .map((block, position) => toolCallOf(block, position, position === 0 ? thinkingBlocks : []));
  const usage = chatUsageOfReport(answer.usage ? usageReportOfConverseUsage(answer.usage) : undefined);

  return {
    id: options.id,
    object: 'chat.completion',
    created: options.created,
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: texts.length > 0 ? texts.join('') : null,
          refusal: null,
          ...(reasoning.length > 0 ? { reasoning_content: reasoning } : {}),
          ...(thinkingBlocks.length > 0 ? { thinking_blocks: thinkingBlocks } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReasonOfConverse(answer.stopReason),
        logprobs: null,
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

function toolCallOf(
  block: ConverseContentBlock,
  position: number,
  carriedReasoning: readonly ChatThinkingBlockOut[],
): ChatToolCallOut {
  const toolUse = block.toolUse;
  return {
    // Bedrock always sends an id; should one be missing, the client still needs one to answer the call with.
    id: callIdCarryingReasoning(toolUse?.toolUseId || `call_${position}`, carriedReasoning),
    type: 'function',
    function: { name: toolUse?.name ?? '', arguments: JSON.stringify(toolUse?.input ?? {}) },
  };
}

/** Signed or redacted reasoning, to go back upstream unchanged; unsigned reasoning is text only. */
function thinkingBlockOf(block: ConverseContentBlock): ChatThinkingBlockOut[] {
  const reasoning = block.reasoningContent;
  if (reasoning?.reasoningText?.signature) {
    return [
      { type: 'thinking', thinking: reasoning.reasoningText.text ?? '', signature: reasoning.reasoningText.signature },
    ];
  }
  if (reasoning?.redactedReasoning?.data)
    return [{ type: 'redacted_thinking', data: reasoning.redactedReasoning.data }];
  return [];
}
