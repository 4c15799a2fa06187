/**
 * Why a Converse answer ended: the answer's `stopReason` and the stream's `messageStop.stopReason`.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
export const converseStopReasons = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'guardrail_intervened',
  'content_filtered',
  'malformed_model_output',
  'malformed_tool_use',
  'model_context_window_exceeded',
] as const;
export type ConverseStopReason = (typeof converseStopReasons)[number];

/** Reasons added after this list was written are still reasons; no mapping knows them. */
export function isConverseStopReason(value: string): value is ConverseStopReason {
  return (converseStopReasons as readonly string[]).includes(value);
}
