import { badRequest } from '../../http/gateway-error.ts';
import type { TranslatableMessagesRequest } from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { ChatRequestOut, ChatResponseFormatOut } from '../../wires/openai-chat/openai-chat-request.ts';
import { convertMessagesPrompt } from './convert-messages-prompt.ts';
import { convertMessagesToolChoice, convertMessagesTools } from './convert-messages-tools.ts';

/**
 * A messages request, every part read (`translatableMessagesRequestSchema`) → a Chat Completions request, for a
 * model whose upstream speaks chat. Throws a 400 GatewayError for what cannot be carried, before anything is
 * reserved or sent.
 *
 * - `system` and the turns → chat messages (convert-messages-prompt.ts); tools and `tool_choice` in chat's form.
 * - `max_tokens` is not written here: the chat wire writes the output allowance (which a smaller `max_tokens`
 *   already bounds) in the field its host reads (openai-chat-spend-bounds.ts). `stop_sequences` → `stop`;
 *   `temperature`, `top_p` and `stream` as they are; `metadata.user_id` → `user`; structured output
 *   (`output_config.format`) → `response_format`. A stream asks for the usage chunk.
 * - `thinking` is the model's business on a chat upstream: a model that reasons returns its reasoning, which
 *   comes back as thinking blocks; one that requires thinking has it on already (and switching it off was refused
 *   on the client's request). A budget has no chat counterpart.
 * - `top_k`, `container` and `mcp_servers` change what the answer can be and have no chat counterpart: refused.
 *   Fields that change no answer's shape (`service_tier`, `context_management`, `cache_control` hints, the
 *   `output_config.effort` hint, whose scale chat upstreams do not share) are not carried.
 */
export function convertMessagesRequestToChat(request: TranslatableMessagesRequest): ChatRequestOut {
  refuseUncarriable(request);
  const tools = request.tools && request.tools.length > 0 ? convertMessagesTools(request.tools) : [];
  const stop = request.stop_sequences?.filter((sequence) => sequence.length > 0) ?? [];
  const user = request.metadata?.user_id;
  const responseFormat = responseFormatOf(request.output_config?.format);
  return {
    model: request.model,
    messages: convertMessagesPrompt(request),
    ...(request.stream != null ? { stream: request.stream } : {}),
    ...(request.stream ? { stream_options: { include_usage: true } } : {}),
    ...(stop.length > 0 ? { stop } : {}),
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
    ...(request.top_p != null ? { top_p: request.top_p } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...convertMessagesToolChoice(request.tool_choice, tools.length > 0),
    ...(responseFormat ? { response_format: responseFormat } : {}),
    ...(user ? { user } : {}),
  };
}

/** `output_config.format` (structured output) → chat's `response_format`, which needs the schema named. */
function responseFormatOf(
  format: NonNullable<TranslatableMessagesRequest['output_config']>['format'],
): ChatResponseFormatOut | undefined {
  if (format === undefined || format === null) return undefined;
  if (format.type === 'json_schema' && format.schema) {
    return { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
  }
  throw badRequest(
    'unsupported_parameter',
    `output_config.format of type "${format.type}" is not supported; send {"type": "json_schema", "schema": {...}}.`,
  );
}

function refuseUncarriable(request: TranslatableMessagesRequest): void {
  if (request.top_k !== undefined) {
    throw badRequest(
      'unsupported_parameter',
      'top_k is not supported for this model: its upstream (a chat-format connection) has no such setting; use temperature or top_p.',
    );
  }
  if (request.container !== undefined && request.container !== null) {
    throw badRequest(
      'unsupported_parameter',
      'container is not supported for this model: it refers to a code-execution container the vendor keeps.',
    );
  }
  const servers = request.mcp_servers;
  if (Array.isArray(servers) ? servers.length > 0 : servers !== undefined && servers !== null) {
    throw badRequest(
      'unsupported_parameter',
      "mcp_servers is not supported for this model: the vendor's MCP connector cannot run behind a chat-format connection.",
    );
  }
}
