import {
  type ConverseStopReason,
  isConverseStopReason,
} from '../../wires/bedrock-converse/bedrock-converse-stop-reason.ts';
import type { ChatFinishReason } from '../../wires/openai-chat/openai-chat-finish-reason.ts';

/**
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 * → https://platform.openai.com/docs/api-reference/chat/object
 */
export function mapConverseStopReason(reason: ConverseStopReason): ChatFinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    // The model's output (or its tool call) could not be read upstream; chat has no "error" reason, and what
    // text came is all there is.
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'stop';
    default: {
      const unknownReason: never = reason;
      throw new Error(`unknown stop reason ${String(unknownReason)}`);
    }
  }
}

/** A reason added after this mapping was written still ended the answer. */
export function finishReasonOfConverse(reason: string | null | undefined): ChatFinishReason {
  return reason && isConverseStopReason(reason) ? mapConverseStopReason(reason) : 'stop';
}
