import type { UsageReport } from '../../wires/usage-report.ts';

/**
 * The Chat Completions answer shapes the translator produces, as the official SDKs read them.
 * https://platform.openai.com/docs/api-reference/chat/object and .../chat-streaming/streaming
 */

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      message: {
        role: 'assistant';
        content: string | null;
        refusal: null;
        /** The model's thinking, apart from `content`, as DeepSeek-type APIs return it. */
        reasoning_content?: string;
        tool_calls?: ChatToolCallOut[];
      };
      finish_reason: ChatFinishReason;
      logprobs: null;
    },
  ];
  usage?: ChatCompletionUsage;
}

export interface ChatChunkToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  tool_calls?: ChatChunkToolCallDelta[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: 0; delta: ChatChunkDelta; logprobs: null; finish_reason: ChatFinishReason | null }[];
  /** With `include_usage`, `null` on every chunk but the last, as the vendor sends it. */
  usage?: ChatCompletionUsage | null;
}

/** The chat completion id for a gateway request, in the vendor's `chatcmpl-` form. */
export function chatCompletionId(requestId: string): string {
  return `chatcmpl-${requestId}`;
}

/**
 * The gateway's usage report (input already includes cache reads and writes) in chat form, where
 * `prompt_tokens` counts every input token and `cached_tokens` is the part read from a cache. A count the
 * provider did not report is unknown: usage is left out rather than sent as 0.
 */
export function chatUsageFromReport(report: UsageReport | undefined): ChatCompletionUsage | undefined {
  if (!report || report.inputTokens === null || report.outputTokens === null) return undefined;
  return {
    prompt_tokens: report.inputTokens,
    completion_tokens: report.outputTokens,
    total_tokens: report.inputTokens + report.outputTokens,
    ...(report.cachedInputTokens === null
      ? {}
      : { prompt_tokens_details: { cached_tokens: report.cachedInputTokens } }),
  };
}
