import {
  isMessagesStopReason,
  type MessagesStopReason,
} from '../../wires/anthropic-messages/anthropic-messages-stop-reason.ts';
import type { ChatFinishReason } from '../../wires/openai-chat/openai-chat-finish-reason.ts';

/** https://docs.anthropic.com/en/api/messages#response-stop-reason → https://platform.openai.com/docs/api-reference/chat/object */
export function mapMessagesStopReason(reason: MessagesStopReason): ChatFinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    // `pause_turn` pauses a long server-tool turn; chat has no "continue" signal, and the text so far is whole.
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default: {
      const unknownReason: never = reason;
      throw new Error(`unknown stop reason ${String(unknownReason)}`);
    }
  }
}

/** Compatible engines add reasons of their own; an answer that ended for a reason we do not know still ended. */
export function finishReasonOf(reason: string | null | undefined): ChatFinishReason {
  return reason && isMessagesStopReason(reason) ? mapMessagesStopReason(reason) : 'stop';
}
