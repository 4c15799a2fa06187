import type { ChatFinishReason } from './chat-completion.ts';

/** https://docs.anthropic.com/en/api/messages#response-stop-reason */
export const messagesStopReasons = [
  'end_turn',
  'stop_sequence',
  'max_tokens',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
] as const;
export type MessagesStopReason = (typeof messagesStopReasons)[number];

function isMessagesStopReason(value: string): value is MessagesStopReason {
  return (messagesStopReasons as readonly string[]).includes(value);
}

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
