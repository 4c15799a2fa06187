import type { ChatCompletionAnswer } from '../../wires/openai-chat/openai-chat-answer.ts';
import { signedThinkingBlocks } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import type { ResponsesItemStatus, ResponsesResponse } from '../../wires/openai-responses/openai-responses-response.ts';
import { unreadableAnswer } from '../../wires/parse-json.ts';
import { buildResponse, defaultResponseForm, type ResponseForm, type ResponseIdentity } from './build-response.ts';
import { endingOf } from './map-chat-finish-reason.ts';
import {
  callState,
  type ItemState,
  itemOf,
  type MessagePartState,
  messageState,
  reasoningState,
} from './output-items.ts';
import { responsesUsageOf } from './responses-usage.ts';

type ChatAnswerMessage = NonNullable<NonNullable<ChatCompletionAnswer['choices']>[number]['message']>;

/**
 * A `chat.completion` → a Responses `response`. The items come in the vendor's order: the reasoning
 * (`reasoning_content`, and the signed `thinking_blocks` for its `encrypted_content`) as a reasoning item, the text and any refusal as one message item, each tool call a
 * function call item (a custom tool's, a custom tool call item) after it. A stop by length is `incomplete` with
 * reason `max_output_tokens`. An answer without a choice is an upstream fault (502).
 */
export function convertChatCompletionToResponse(
  chatCompletion: ChatCompletionAnswer,
  identity: ResponseIdentity,
): ResponsesResponse {
  const choice = chatCompletion.choices?.[0];
  if (!choice) throw unreadableAnswer('the chat answer has no choice');
  const ending = endingOf(choice.finish_reason);
  const status: ResponsesItemStatus = ending.status === 'completed' ? 'completed' : 'incomplete';
  const form = identity.form ?? defaultResponseForm;
  return buildResponse(
    { ...identity, createdAt: identity.createdAt ?? Math.floor(Date.now() / 1000) },
    {
      status: ending.status,
      output: itemStatesOf(choice.message ?? {}, identity.id, form).map((state) => itemOf({ ...state, status }, form)),
      usage: responsesUsageOf(chatCompletion.usage),
      incompleteReason: ending.status === 'incomplete' ? ending.reason : undefined,
    },
  );
}

function itemStatesOf(message: ChatAnswerMessage, responseId: string, form: ResponseForm): ItemState[] {
  const states: ItemState[] = [];
  const thinkingBlocks = signedThinkingBlocks(message.thinking_blocks);
  if (message.reasoning_content || thinkingBlocks.length > 0) {
    states.push(reasoningState(responseId, states.length, message.reasoning_content ?? '', thinkingBlocks));
  }
  const calls = message.tool_calls ?? [];
  const parts: MessagePartState[] = [];
  if (message.content) parts.push({ type: 'output_text', text: message.content });
  if (message.refusal) parts.push({ type: 'refusal', text: message.refusal });
  // An answer without a call still gets its message item, so `output_text` is '' rather than an answer with no output.
  if (parts.length === 0 && calls.length === 0) parts.push({ type: 'output_text', text: '' });
  if (parts.length > 0) states.push(messageState(responseId, states.length, parts));
  calls.forEach((call, position) => {
    states.push(
      callState(
        responseId,
        states.length,
        {
          // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
          callId: call.id ?? `call_${position}`,
          name: call.function?.name ?? '',
          arguments: call.function?.arguments ?? '',
        },
        form,
      ),
    );
  });
  return states;
}
