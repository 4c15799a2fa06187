import type { MessagesStopReason } from '../../wires/anthropic-messages/anthropic-messages-stop-reason.ts';
import { type ChatFinishReason, isChatFinishReason } from '../../wires/openai-chat/openai-chat-finish-reason.ts';

/**
 * https://platform.openai.com/docs/api-reference/chat/object → https://docs.anthropic.com/en/api/messages#response-stop-reason.
 * Chat does not say whether a stop sequence ended the answer, so `stop` is `end_turn`.
 */
export function mapChatFinishReason(reason: ChatFinishReason): MessagesStopReason {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default: {
      const unknownReason: never = reason;
      throw new Error(`unknown finish reason ${String(unknownReason)}`);
    }
  }
}

/** Compatible engines add reasons of their own (`eos`, `abort`...); an answer that ended for one still ended. */
export function stopReasonOf(reason: string | null | undefined): MessagesStopReason {
  return reason && isChatFinishReason(reason) ? mapChatFinishReason(reason) : 'end_turn';
}
