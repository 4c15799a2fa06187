import type { ChatCompletionAnswer } from '../../wires/openai-chat/openai-chat-answer.ts';
import type {
  ResponsesItemStatus,
  ResponsesOutputItem,
  ResponsesResponse,
} from '../../wires/openai-responses/openai-responses-response.ts';
import { unreadableAnswer } from '../../wires/parse-json.ts';
import { buildResponse, callArguments, outputItemId, type ResponseIdentity } from './build-response.ts';
import { endingOf } from './map-chat-finish-reason.ts';
import { responsesUsageOf } from './responses-usage.ts';

type ChatAnswerMessage = NonNullable<NonNullable<ChatCompletionAnswer['choices']>[number]['message']>;

/**
 * A `chat.completion` → a Responses `response`. The text becomes one message item with one `output_text`
 * part, each tool call a `function_call` item after it, as the vendor orders them; `reasoning_content` is left
 * out (a Responses reasoning item would need the vendor's encrypted state to be sent back). A stop by length
 * is `incomplete` with reason `max_output_tokens`. An answer without a choice is an upstream fault (502).
 */
export function convertChatCompletionToResponse(
  chatCompletion: ChatCompletionAnswer,
  identity: ResponseIdentity,
): ResponsesResponse {
  const choice = chatCompletion.choices?.[0];
  if (!choice) throw unreadableAnswer('the chat answer has no choice');
  const ending = endingOf(choice.finish_reason);
  const itemStatus: ResponsesItemStatus = ending.status === 'completed' ? 'completed' : 'incomplete';
  return buildResponse(
    { ...identity, createdAt: identity.createdAt ?? Math.floor(Date.now() / 1000) },
    {
      status: ending.status,
      output: outputItemsOf(choice.message ?? {}, identity.id, itemStatus),
      usage: responsesUsageOf(chatCompletion.usage),
      incompleteReason: ending.status === 'incomplete' ? ending.reason : undefined,
    },
  );
}

function outputItemsOf(message: ChatAnswerMessage, id: string, status: ResponsesItemStatus): ResponsesOutputItem[] {
  const calls = message.tool_calls ?? [];
  // A refusal is what the assistant said; it is kept as text rather than lost, as the stream transform does.
  const text = (message.content ?? '') + (message.refusal ?? '');
  // An empty answer still gets its message item, so `output_text` is '' rather than an answer with no output.
  const withMessage = text.length > 0 || calls.length === 0;
  const items: ResponsesOutputItem[] = [];
  if (withMessage) {
    items.push({
      type: 'message',
      id: outputItemId('msg', id, 0),
      role: 'assistant',
      status,
      content: [{ type: 'output_text', text, annotations: [] }],
    });
  }
  calls.forEach((call, position) => {
    items.push({
      type: 'function_call',
      id: outputItemId('fc', id, items.length),
      // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
      call_id: call.id ?? `call_${position}`,
      name: call.function?.name ?? '',
      arguments: callArguments(call.function?.arguments ?? ''),
      status,
    });
  });
  return items;
}
