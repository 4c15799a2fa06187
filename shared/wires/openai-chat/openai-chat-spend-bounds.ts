import { remembered } from '../../cache/remembered.ts';
import { cappedAt, serverToolRefused, toolTypeOf } from '../spend-bounds.ts';
import type { ChatRequest } from './openai-chat-request.ts';

/**
 * What the reservation bounds on the Chat Completions wire (shared/wires/spend-bounds.ts).
 * https://platform.openai.com/docs/api-reference/chat/create
 */

/** `n` answers, each as long as the output cap allows. */
export function chatAnswerCount(request: ChatRequest): number {
  return request.n ?? 1;
}

/**
 * Tools the client runs itself: `function`, and `custom` (free-form input the client's own code receives, as Codex
 * CLI's apply_patch). Anything else in `tools` (file_search, web_search_preview, whatever an engine adds) and the
 * search models' `web_search_options` run on the provider's side.
 */
const clientSideToolTypes = new Set(['function', 'custom']);

/**
 * Refuses the first of `tools` the client does not run itself, by the rule both OpenAI formats share (the
 * Responses wire's built-in tools are the same `type`s); `kind` says what such a tool is called on the wire.
 */
export function assertOpenaiToolsClientSide(tools: readonly unknown[] | null | undefined, kind: string): void {
  for (const [position, tool] of (tools ?? []).entries()) {
    const type = toolTypeOf(tool);
    if (type === undefined || !clientSideToolTypes.has(type)) {
      throw serverToolRefused(`tools.${position}`, `${kind} of type ${type ?? '(none)'}`);
    }
  }
}

export function assertChatCostBounded(request: ChatRequest): void {
  if (request.web_search_options !== undefined && request.web_search_options !== null) {
    throw serverToolRefused('web_search_options', 'a web search');
  }
  assertOpenaiToolsClientSide(request.tools, 'a tool');
}

const capFields = ['max_completion_tokens', 'max_tokens'] as const;

/**
 * OpenAI's own API (and Azure OpenAI) reads `max_completion_tokens` on every model and refuses `max_tokens` on its
 * reasoning models (o-series, gpt-5). Compatible engines read `max_tokens`, and many read no other: Ollama, LM
 * Studio, DeepSeek- and GLM-type APIs and the alpha route of spec §4.2 ignore `max_completion_tokens`, which would
 * leave the answer unbounded (https://docs.ollama.com/api/openai-compatibility). Remembered per base URL: a
 * connection's few, asked on every request (a URL parse was about a tenth of building the upstream request).
 */
const readsMaxCompletionTokens = remembered((baseUrl) => {
  const host = new URL(baseUrl).hostname.toLowerCase();
  return host === 'api.openai.com' || host.endsWith('.openai.azure.com');
}, 256);

const stated = (value: unknown) => value !== undefined && value !== null;

/**
 * The body with `cap` as its output cap. Each cap field the client used is kept and lowered to the cap where it
 * asks for more (an engine may read either, so both are held to it). Towards OpenAI's own API a request that used
 * neither gets `max_completion_tokens`; towards any other host `max_tokens` is always there, since it is the one
 * field every compatible engine reads: where the client used only `max_completion_tokens`, its value is written
 * there too, so an engine that ignores that field is still held to what was reserved.
 */
export function withChatOutputCap(
  body: Record<string, unknown>,
  cap: number,
  baseUrl: string,
): Record<string, unknown> {
  const capped = { ...body };
  for (const field of capFields) if (stated(body[field])) capped[field] = cappedAt(body[field], cap);
  if (readsMaxCompletionTokens(baseUrl)) {
    if (!capFields.some((field) => stated(body[field]))) capped.max_completion_tokens = cap;
  } else if (!stated(body.max_tokens)) {
    capped.max_tokens = stated(body.max_completion_tokens) ? capped.max_completion_tokens : cap;
  }
  return capped;
}
