import { badRequest } from '../../http/gateway-error.ts';
import type { MessagesRequestOut } from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { TranslatableChatRequest } from '../../wires/openai-chat/openai-chat-request.ts';
import { convertToMessagesPrompt } from './convert-to-messages-prompt.ts';
import { convertToolChoice, convertTools } from './convert-tools.ts';

export interface ConvertChatRequestOptions {
  /** The model name the messages-style upstream knows (catalog `upstreamModel`). */
  upstreamModel: string;
  /** `max_tokens` is required upstream; this is sent when the client states none. */
  maxTokensDefault: number;
}

/**
 * A Chat Completions request, every part read (`translatableChatRequestSchema`) → a messages-format request for
 * a messages-format route (spec §1 item 8). What the route cannot do is a 400 GatewayError, thrown before
 * anything is reserved or sent. Chat fields without a messages counterpart that change no answer (`user`, `seed`,
 * `stream_options`, penalties, ...) are dropped: the messages format refuses fields it does not know, so nothing
 * is passed through blindly. The rules of thinking mode (K2.7) are applied to the result,
 * in messages form, as to a messages client's own request (thinking-mode.ts).
 */
export function convertChatRequestToMessages(
  request: TranslatableChatRequest,
  options: ConvertChatRequestOptions,
): MessagesRequestOut {
  refuseUntranslatable(request);

  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? options.maxTokensDefault;
  const { system, messages } = convertToMessagesPrompt(request.messages);
  const tools = request.tools && request.tools.length > 0 ? convertTools(request.tools) : undefined;
  const toolChoice = convertToolChoice(request.tool_choice, {
    hasTools: tools !== undefined,
    parallelToolCalls: request.parallel_tool_calls,
  });
  const stopSequences = stopSequencesOf(request.stop);

  return {
    model: options.upstreamModel,
    max_tokens: maxTokens,
    messages,
    ...(system.length > 0 ? { system } : {}),
    // The client's own choice, if it made one; a model that requires thinking gets it in messages form.
    ...(request.thinking !== undefined && request.thinking !== null ? { thinking: request.thinking } : {}),
    ...(stopSequences ? { stop_sequences: stopSequences } : {}),
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
    ...(request.top_p != null ? { top_p: request.top_p } : {}),
    ...(request.stream != null ? { stream: request.stream } : {}),
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
  };
}

/** Fields that would change the answer's shape and that the messages format cannot honour: refused, not dropped. */
function refuseUntranslatable(request: TranslatableChatRequest): void {
  if (request.n != null && request.n > 1) {
    throw badRequest('unsupported_parameter', 'n greater than 1 is not supported for this model; send n = 1.');
  }
  if (request.logprobs === true) {
    throw badRequest('unsupported_parameter', 'logprobs is not supported for this model.');
  }
  if (request.response_format && request.response_format.type !== 'text') {
    throw badRequest(
      'unsupported_parameter',
      `response_format of type "${request.response_format.type}" is not supported for this model; describe the format in the prompt or use a tool.`,
    );
  }
}

function stopSequencesOf(stop: string | string[] | null | undefined): string[] | undefined {
  if (stop === null || stop === undefined) return undefined;
  const sequences = typeof stop === 'string' ? [stop] : stop;
  return sequences.length > 0 ? sequences : undefined;
}
