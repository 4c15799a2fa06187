import { badRequest } from '../../http/gateway-error.ts';
import type { ConverseRequest } from '../../wires/bedrock-converse/bedrock-converse-request.ts';
import type { TranslatableChatRequest } from '../../wires/openai-chat/openai-chat-request.ts';
import { convertConverseTools, readConverseToolChoice } from './convert-converse-tools.ts';
import { convertToConversePrompt } from './convert-to-converse-messages.ts';

export interface ConvertToConverseOptions {
  /**
   * The output tokens the reservation holds for the answer (the least of what the client asked, the model's
   * limit and the key's policy): always sent as `maxTokens`, so no answer can outgrow what was reserved.
   */
  outputAllowance: number;
}

/**
 * A Chat Completions request, every part read (`translatableChatRequestSchema`) → a Converse request. What Converse
 * cannot carry and would change the answer's shape is a 400, thrown before anything is reserved or sent. Chat
 * fields without a Converse counterpart that change no answer's shape (`user`, `seed`, `stream_options`,
 * penalties, `parallel_tool_calls`, `reasoning_effort`, `thinking`) are left out: Converse refuses fields it does
 * not know, and how each model family takes a reasoning setting in `additionalModelRequestFields` differs by
 * family (see docs/bedrock-converse.md), so nothing is sent blindly.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export function convertChatRequestToConverse(
  request: TranslatableChatRequest,
  options: ConvertToConverseOptions,
): ConverseRequest {
  refuseUntranslatable(request);
  const { system, messages, holdsToolTurns } = convertToConversePrompt(request.messages);
  const tools = request.tools && request.tools.length > 0 ? convertConverseTools(request.tools) : undefined;
  const chosen = readConverseToolChoice(request.tool_choice);
  if (holdsToolTurns && tools === undefined) {
    throw badRequest(
      'tools_required',
      "The messages hold tool calls or tool results, which Bedrock's Converse API takes only with the tools declared; send the tools the conversation used.",
    );
  }
  // `none` has no Converse counterpart: the tools are left out, so the model cannot call one — unless the
  // conversation already holds tool turns, which Converse reads only with the tools declared; they are then
  // declared with Converse's default choice (`auto`).
  const toolConfig =
    tools === undefined || (chosen.type === 'none' && !holdsToolTurns)
      ? undefined
      : { tools, ...(chosen.type === 'choice' && chosen.choice ? { toolChoice: chosen.choice } : {}) };
  const stopSequences = stopSequencesOf(request.stop);

  return {
    messages,
    ...(system.length > 0 ? { system } : {}),
    inferenceConfig: {
      maxTokens: options.outputAllowance,
      ...(request.temperature != null ? { temperature: request.temperature } : {}),
      ...(request.top_p != null ? { topP: request.top_p } : {}),
      ...(stopSequences ? { stopSequences } : {}),
    },
    ...(toolConfig ? { toolConfig } : {}),
  };
}

/** Fields that would change the answer's shape and that Converse cannot honour: refused, not dropped. */
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
