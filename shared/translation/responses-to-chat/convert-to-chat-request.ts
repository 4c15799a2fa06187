import { badRequest } from '../../http/gateway-error.ts';
import type { ChatRequestOut } from '../../wires/openai-chat/openai-chat-request.ts';
import type { TranslatableResponsesRequest } from '../../wires/openai-responses/openai-responses-request.ts';
import type { ResponseSettings } from '../../wires/openai-responses/openai-responses-response.ts';
import type { ResponseForm } from './build-response.ts';
import { convertResponsesInput } from './convert-responses-input.ts';
import { type ChatTools, convertToolChoice, convertTools, readToolChoice } from './convert-responses-tools.ts';
import { convertTextFormat } from './convert-text-format.ts';
import { refuseStoredState } from './stored-state.ts';

/** A Responses request in chat form, and what its answer must look like to the client. */
export interface ResponsesInChatForm {
  request: ChatRequestOut;
  settings: ResponseSettings;
  form: ResponseForm;
}

/**
 * A Responses request, every part read (`translatableResponsesRequestSchema`) → a Chat Completions request, for a
 * model whose upstream speaks chat (and, through the chat-to-messages hop after this, one that speaks messages).
 * Throws a 400 GatewayError for what cannot be translated, before anything is reserved or sent.
 *
 * - `instructions` and `input` → messages (convert-responses-input.ts); `tools` and `tool_choice` → chat's nested
 *   form (convert-responses-tools.ts); `text.format` → `response_format`, `text.verbosity` → `verbosity`,
 *   `reasoning.effort` → `reasoning_effort` (the catalog's rules apply to it in chat form).
 * - `max_output_tokens` is not written: the upstream wire writes the output allowance, which is never more, in the
 *   cap field its host reads, and the messages hop its `max_tokens`.
 * - Carried as they are, chat having them too: `temperature`, `top_p`, `parallel_tool_calls` (with tools),
 *   `user`, `safety_identifier`, `prompt_cache_key`, `service_tier`. A stream always asks for the usage chunk.
 * - Server-stored state is refused (stored-state.ts); so are logprobs (`top_logprobs`, `include` of
 *   `message.output_text.logprobs`), which the answer would have to carry and cannot.
 * - Left out, as they change nothing a chat upstream does: `metadata` (echoed in the response, which is stored
 *   nowhere to be tagged), `reasoning.summary` (it shapes the answer, see `ResponseForm`), `include` (the same),
 *   `truncation` (a too-long conversation is the upstream's error rather than cut), `stream_options`,
 *   `max_tool_calls` (it bounds built-in tools, which do not run here).
 */
export function convertResponsesRequestToChat(request: TranslatableResponsesRequest): ResponsesInChatForm {
  refuseStoredState(request);
  refuseLogprobs(request);
  if (request.input === undefined) {
    throw badRequest('invalid_request', 'input is required: send the conversation as a string or a list of items.');
  }

  const messages = convertResponsesInput(request.input, request.instructions);
  if (messages.length === 0) {
    throw badRequest('invalid_request', 'input must contain at least one item.');
  }
  const tools = convertTools(request.tools);
  const toolChoice = readToolChoice(request.tool_choice);
  const responseFormat = convertTextFormat(request.text?.format);
  const effort = request.reasoning?.effort;
  const hasTools = tools.tools.length > 0;

  return {
    request: {
      model: request.model,
      messages,
      ...(request.stream != null ? { stream: request.stream } : {}),
      ...(request.stream ? { stream_options: { include_usage: true } } : {}),
      ...(request.temperature != null ? { temperature: request.temperature } : {}),
      ...(request.top_p != null ? { top_p: request.top_p } : {}),
      ...(effort != null ? { reasoning_effort: effort } : {}),
      ...(request.text?.verbosity != null ? { verbosity: request.text.verbosity } : {}),
      // Chat upstreams refuse `tool_choice` and `parallel_tool_calls` without tools; without tools they mean nothing.
      ...(hasTools ? { tools: tools.tools } : {}),
      ...(hasTools && toolChoice ? { tool_choice: convertToolChoice(toolChoice) } : {}),
      ...(hasTools && request.parallel_tool_calls != null ? { parallel_tool_calls: request.parallel_tool_calls } : {}),
      ...(responseFormat ? { response_format: responseFormat } : {}),
      ...(request.user != null ? { user: request.user } : {}),
      ...(request.safety_identifier != null ? { safety_identifier: request.safety_identifier } : {}),
      ...(request.prompt_cache_key != null ? { prompt_cache_key: request.prompt_cache_key } : {}),
      ...(request.service_tier != null ? { service_tier: request.service_tier } : {}),
    },
    settings: responseSettingsOf(request, tools),
    form: {
      customToolNames: tools.customToolNames,
      // The gateway cannot summarise: a client that asks for a summary gets the reasoning itself as one, since a
      // summary is what such clients show and send back (Codex CLI, the Vercel AI SDK).
      reasoningAs: request.reasoning?.summary ? 'summary' : 'content',
      encryptedReasoning: request.include?.includes('reasoning.encrypted_content') ?? false,
    },
  };
}

/** The request settings the response repeats, as the vendor's response does (`tools`, `tool_choice`, ...). */
function responseSettingsOf(request: TranslatableResponsesRequest, tools: ChatTools): ResponseSettings {
  return {
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    temperature: request.temperature ?? null,
    tool_choice: readToolChoice(request.tool_choice) ?? 'auto',
    tools: tools.echoed,
    top_p: request.top_p ?? null,
  };
}

function refuseLogprobs(request: TranslatableResponsesRequest): void {
  if ((request.top_logprobs ?? 0) > 0 || request.include?.includes('message.output_text.logprobs')) {
    throw badRequest(
      'unsupported_parameter',
      'Log probabilities (top_logprobs, include "message.output_text.logprobs") are not supported for this model.',
    );
  }
}
