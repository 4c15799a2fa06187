import { GatewayError } from '../../http/gateway-error.ts';
import { anthropicMessagesUsageFromBody } from '../../wires/anthropic-messages/anthropic-messages-usage.ts';
import { type ChatCompletion, type ChatToolCallOut, chatUsageFromReport } from './chat-completion.ts';
import { finishReasonOf } from './map-messages-stop-reason.ts';
import { type MessagesContentBlock, messagesResponseSchema } from './messages-response-schema.ts';

export interface ConvertMessagesResponseOptions {
  /** The chat completion id (see `chatCompletionId`). */
  id: string;
  /** The model id as the client asked for it, not the upstream's name. */
  model: string;
  /** Unix seconds; now when not given. */
  created?: number;
}

/**
 * A messages-format answer → a `chat.completion`. Text blocks are joined into `content`; thinking goes to
 * `reasoning_content`, never into `content`; each `tool_use` becomes a tool call whose arguments are the
 * input as a JSON string. A 200 whose body is not a messages answer is an upstream fault (502).
 */
export function convertMessagesResponseToChat(
  messagesBody: unknown,
  options: ConvertMessagesResponseOptions,
): ChatCompletion {
  const parsed = messagesResponseSchema.safeParse(messagesBody);
  if (!parsed.success) {
    throw new GatewayError(502, 'upstream_invalid_response', 'The upstream provider returned an unreadable answer.', {
      cause: parsed.error,
    });
  }
  const blocks = parsed.data.content ?? [];
  const text = blocks.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
  const reasoning = blocks.map((block) => (block.type === 'thinking' ? (block.thinking ?? '') : '')).join('');
  const toolCalls = blocks.filter((block) => block.type === 'tool_use').map(toolCallOf);
  const hasText = blocks.some((block) => block.type === 'text');
  const usage = chatUsageFromReport(anthropicMessagesUsageFromBody(messagesBody));

  return {
    id: options.id,
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: hasText ? text : null,
          refusal: null,
          ...(reasoning.length > 0 ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReasonOf(parsed.data.stop_reason),
        logprobs: null,
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

function toolCallOf(block: MessagesContentBlock, position: number): ChatToolCallOut {
  return {
    // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
    id: block.id ?? `call_${position}`,
    type: 'function',
    function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) },
  };
}
