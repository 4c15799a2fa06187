/** Why a chat answer ended. https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices */
export const chatFinishReasons = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;
export type ChatFinishReason = (typeof chatFinishReasons)[number];

/** Compatible engines add reasons of their own (`eos`, `abort`...), which no mapping knows. */
export function isChatFinishReason(value: string): value is ChatFinishReason {
  return (chatFinishReasons as readonly string[]).includes(value);
}
