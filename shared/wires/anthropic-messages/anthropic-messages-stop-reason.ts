/** Why a messages answer ended. https://docs.anthropic.com/en/api/messages#response-stop-reason */
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

/** Compatible engines add reasons of their own, which no mapping knows. */
export function isMessagesStopReason(value: string): value is MessagesStopReason {
  return (messagesStopReasons as readonly string[]).includes(value);
}
