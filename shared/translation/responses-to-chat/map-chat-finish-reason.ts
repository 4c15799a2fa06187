import { type ChatFinishReason, isChatFinishReason } from '../../wires/openai-chat/openai-chat-finish-reason.ts';
import type { ResponsesIncompleteReason } from '../../wires/openai-responses/openai-responses-response.ts';

/** How a Responses answer ends: whole, or cut short for a reason `incomplete_details` names. */
export type ResponsesEnding = { status: 'completed' } | { status: 'incomplete'; reason: ResponsesIncompleteReason };

/** https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details */
export function mapChatFinishReason(reason: ChatFinishReason): ResponsesEnding {
  switch (reason) {
    case 'stop':
    case 'tool_calls':
    case 'function_call':
      return { status: 'completed' };
    case 'length':
      return { status: 'incomplete', reason: 'max_output_tokens' };
    case 'content_filter':
      return { status: 'incomplete', reason: 'content_filter' };
    default: {
      const unknownReason: never = reason;
      throw new Error(`unknown finish reason ${String(unknownReason)}`);
    }
  }
}

/** Compatible engines add reasons of their own (`eos`, `abort`...); an answer that ended for one still ended. */
export function endingOf(reason: string | null | undefined): ResponsesEnding {
  return reason && isChatFinishReason(reason) ? mapChatFinishReason(reason) : { status: 'completed' };
}
