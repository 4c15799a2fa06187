import { badRequest } from '../../http/gateway-error.ts';
import type { ChatRequestOut } from '../../wires/openai-chat/openai-chat-request.ts';
import type { TranslatableResponsesRequest } from '../../wires/openai-responses/openai-responses-request.ts';
import type { ResponseSettings } from '../../wires/openai-responses/openai-responses-response.ts';
import { convertResponsesInput } from './convert-responses-input.ts';
import { convertToolChoice, convertTools, functionToolsOf, readToolChoice } from './convert-responses-tools.ts';
import { convertTextFormat } from './convert-text-format.ts';

/**
 * A Responses request, every part read (`translatableResponsesRequestSchema`) → a Chat Completions request, for
 * a model whose upstream speaks chat (and, through the
 * chat-to-messages translator after this, one that speaks messages). Throws a 400 GatewayError for what cannot
 * be translated, before anything is reserved or sent.
 *
 * - `instructions` → a leading system message; `input` → user/assistant/system messages (text only).
 * - `max_output_tokens` → `max_tokens` (the output allowance where the client states none, so the cap the
 *   reservation holds reaches every hop), `reasoning.effort` → `reasoning_effort`, `text.format` →
 *   `response_format`; function `tools` and `tool_choice` in chat's nested form; `temperature`, `top_p`,
 *   `parallel_tool_calls` and `stream` as they are. A stream always asks for the usage chunk.
 * - Server-stored state (`previous_response_id`, `conversation`, `prompt`, `background`) is refused: the
 *   gateway stores no responses, so there is nothing to continue from.
 * - `store` is ignored rather than refused: SDKs send `store: true` by default, and refusing it would break
 *   every plain request; the answer says `store: false`. Fields that change no answer (`metadata`, which is
 *   only echoed back, `user`, `safety_identifier`, `prompt_cache_key`, `service_tier`, `include`,
 *   `truncation`, `text.verbosity`, `reasoning.summary`, `top_logprobs`) are dropped.
 */
export function convertResponsesRequestToChat(
  request: TranslatableResponsesRequest,
  options: { maxTokensDefault: number },
): ChatRequestOut {
  refuseStoredState(request);
  if (request.input === undefined) {
    throw badRequest('invalid_request', 'input is required: send the conversation as a string or a list of messages.');
  }

  const messages = convertResponsesInput(request.input, request.instructions);
  if (messages.length === 0) {
    throw badRequest('invalid_request', 'input must contain at least one message.');
  }
  const tools = request.tools && request.tools.length > 0 ? functionToolsOf(request.tools) : [];
  const toolChoice = readToolChoice(request.tool_choice);
  const responseFormat = convertTextFormat(request.text?.format);
  const effort = request.reasoning?.effort;

  return {
    model: request.model,
    messages,
    ...(request.stream != null ? { stream: request.stream } : {}),
    ...(request.stream ? { stream_options: { include_usage: true } } : {}),
    max_tokens: request.max_output_tokens ?? options.maxTokensDefault,
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
    ...(request.top_p != null ? { top_p: request.top_p } : {}),
    ...(effort != null ? { reasoning_effort: effort } : {}),
    // Chat upstreams refuse `tool_choice` and `parallel_tool_calls` without tools; without tools they mean nothing.
    ...(tools.length > 0 ? { tools: convertTools(tools) } : {}),
    ...(tools.length > 0 && toolChoice ? { tool_choice: convertToolChoice(toolChoice) } : {}),
    ...(tools.length > 0 && request.parallel_tool_calls != null
      ? { parallel_tool_calls: request.parallel_tool_calls }
      : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
  };
}

/**
 * The request settings the response repeats, as the vendor's response does (`tools`, `tool_choice`,
 * `temperature`...). For a request `convertResponsesRequestToChat` accepted; it throws on the same ones it refuses.
 */
export function responseSettingsOf(request: TranslatableResponsesRequest): ResponseSettings {
  const tools = request.tools ? functionToolsOf(request.tools) : [];
  return {
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    temperature: request.temperature ?? null,
    tool_choice: readToolChoice(request.tool_choice) ?? 'auto',
    tools: tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? null,
    })),
    top_p: request.top_p ?? null,
  };
}

const storedStateAdvice = 'The gateway stores no responses: send the whole conversation in input instead.';

function refuseStoredState(request: TranslatableResponsesRequest): void {
  if (request.previous_response_id) {
    throw badRequest(
      'unsupported_parameter',
      `previous_response_id is not supported: it continues a response stored by the server. ${storedStateAdvice}`,
    );
  }
  if (request.conversation !== undefined && request.conversation !== null) {
    throw badRequest(
      'unsupported_parameter',
      `conversation is not supported: it refers to a conversation stored by the server. ${storedStateAdvice}`,
    );
  }
  if (request.prompt !== undefined && request.prompt !== null) {
    throw badRequest(
      'unsupported_parameter',
      'prompt is not supported: it refers to a prompt template stored by the vendor; send instructions and input instead.',
    );
  }
  if (request.background === true) {
    throw badRequest(
      'unsupported_parameter',
      'background is not supported: a background response is stored and polled; send the request without it, streamed if it is long.',
    );
  }
}
