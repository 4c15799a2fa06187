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

export function assertChatCostBounded(request: ChatRequest): void {
  if (request.web_search_options !== undefined && request.web_search_options !== null) {
    throw serverToolRefused('web_search_options', 'a web search');
  }
  for (const [position, tool] of (request.tools ?? []).entries()) {
    const type = toolTypeOf(tool);
    if (type === undefined || !clientSideToolTypes.has(type)) {
      throw serverToolRefused(`tools.${position}`, `a tool of type ${type ?? '(none)'}`);
    }
  }
}

const capFields = ['max_completion_tokens', 'max_tokens'] as const;

/**
 * OpenAI's own API refuses `max_tokens` on its reasoning models (o-series, gpt-5) and reads `max_completion_tokens`
 * on all of them; compatible engines (Ollama, LM Studio, DeepSeek- and GLM-type APIs, the alpha route of spec
 * §4.2) read `max_tokens` and some ignore the newer name, which would leave the answer unbounded.
 */
function defaultCapField(baseUrl: string): (typeof capFields)[number] {
  const host = new URL(baseUrl).hostname.toLowerCase();
  return host === 'api.openai.com' || host.endsWith('.openai.azure.com') ? 'max_completion_tokens' : 'max_tokens';
}

/**
 * The body with `cap` as its output cap: each cap field the client used is lowered to it where it asks for more
 * (an engine may read either, so both are held to it), and where it used neither, the one the upstream reads.
 */
export function withChatOutputCap(
  body: Record<string, unknown>,
  cap: number,
  baseUrl: string,
): Record<string, unknown> {
  const stated = capFields.filter((field) => body[field] !== undefined && body[field] !== null);
  if (stated.length === 0) return { ...body, [defaultCapField(baseUrl)]: cap };
  const capped = { ...body };
  for (const field of stated) capped[field] = cappedAt(body[field], cap);
  return capped;
}
