import type {
  MessagesAnswerOut,
  MessagesContentBlockOut,
} from '../../wires/anthropic-messages/anthropic-messages-answer.ts';
import { messagesUsageOfReport } from '../../wires/anthropic-messages/anthropic-messages-usage.ts';
import type { ChatCompletionAnswer } from '../../wires/openai-chat/openai-chat-answer.ts';
import type { ChatThinkingBlockIn } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { usageReportOfChatUsage } from '../../wires/openai-chat/openai-chat-usage.ts';
import { isRecord, unreadableAnswer } from '../../wires/parse-json.ts';
import { stopReasonOf } from './map-chat-finish-reason.ts';

export interface MessagesAnswerIdentity {
  /** The message id (see `messagesAnswerId`). */
  id: string;
  /** The model id as the client asked for it, not the upstream's name. */
  model: string;
}

type ChatAnswerMessage = NonNullable<NonNullable<ChatCompletionAnswer['choices']>[number]['message']>;

/**
 * A `chat.completion` → a messages answer, blocks in the order the format puts them: the reasoning first (the
 * upstream's signed `thinking_blocks` where it sent them, else `reasoning_content` as one thinking block without
 * a signature), then the text (a refusal is what the assistant said, kept as text), then each tool call as a
 * `tool_use` block whose input is its arguments parsed. An answer without a choice is an upstream fault (502).
 */
export function convertChatCompletionToMessages(
  completion: ChatCompletionAnswer,
  identity: MessagesAnswerIdentity,
): MessagesAnswerOut {
  const choice = completion.choices?.[0];
  if (!choice) throw unreadableAnswer('the chat answer has no choice');
  const message = choice.message ?? {};
  const text = (message.content ?? '') + (message.refusal ?? '');
  const content: MessagesContentBlockOut[] = [
    ...thinkingBlocksOf(message),
    ...(text.length > 0 ? [{ type: 'text' as const, text }] : []),
    ...(message.tool_calls ?? []).map((call, position) => ({
      type: 'tool_use' as const,
      // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
      id: call.id ?? `toolu_${position}`,
      name: call.function?.name ?? '',
      input: toolInputOf(call.function?.arguments),
    })),
  ];
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: stopReasonOf(choice.finish_reason),
    stop_sequence: null,
    usage: messagesUsageOfReport(completion.usage ? usageReportOfChatUsage(completion.usage) : undefined),
  };
}

function thinkingBlocksOf(message: ChatAnswerMessage): MessagesContentBlockOut[] {
  if (message.thinking_blocks && message.thinking_blocks.length > 0) {
    return message.thinking_blocks.map(thinkingBlockOut);
  }
  const reasoning = message.reasoning_content ?? '';
  return reasoning.length > 0 ? [{ type: 'thinking', thinking: reasoning, signature: '' }] : [];
}

export function thinkingBlockOut(block: ChatThinkingBlockIn): MessagesContentBlockOut {
  return block.type === 'thinking'
    ? { type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' }
    : { type: 'redacted_thinking', data: block.data };
}

/**
 * Chat carries a call's arguments as JSON text; the messages format as an object. Blank text (a function without
 * parameters) is `{}`; text that is not a JSON object (a call cut short by `max_tokens`) is kept as `{input: text}`
 * rather than lost.
 */
export function toolInputOf(argumentText: string | null | undefined): Record<string, unknown> {
  const text = argumentText ?? '';
  if (text.trim().length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // Not JSON: kept as text below.
  }
  return { input: text };
}
