import { type CallIdPlace, callIdRewrite } from '../../translation/chat-to-messages/reasoning-in-call-id.ts';
import { isRecord } from '../parse-json.ts';
import { upstreamRequestJson } from '../upstream-request-json.ts';
import { joinUrl, type UpstreamWireFormat } from '../upstream-wire-format.ts';
import { type ChatCompletionAnswer, parseChatAnswer, usageOfChatAnswer } from './openai-chat-answer.ts';
import { withChatOutputCap } from './openai-chat-spend-bounds.ts';
import { type ChatStreamEvent, parseChatStreamEvent } from './openai-chat-stream-event.ts';
import { createChatStreamUsageReader } from './openai-chat-usage.ts';
import { openaiAuthorization, openaiBaseUrl, openaiUpstreamModelList } from './openai-upstream-api.ts';

/** An assistant turn's tool calls, and each tool message's reference to its call. */
const chatCallIdPlaces: readonly CallIdPlace[] = [
  ['messages', 'tool_calls', 'id'],
  ['messages', 'tool_call_id'],
];
const chatRewrites = [callIdRewrite(chatCallIdPlaces)];

/** OpenAI-compatible Chat Completions upstreams (plain, GLM-type, DeepSeek-type). */
export const openaiChatUpstreamWire: UpstreamWireFormat<ChatCompletionAnswer, ChatStreamEvent> = {
  wire: 'openai-chat',
  baseUrl: openaiBaseUrl,
  forwardedClientHeaders: [],
  buildUpstreamRequest({ target, body, upstreamModel, stream, outputCap }) {
    const capped = outputCap === undefined ? body : withChatOutputCap(body, outputCap, target.baseUrl);
    const upstreamBody: Record<string, unknown> = { ...capped, model: upstreamModel };
    if (stream) {
      // Ask for usage even when the client did not, so the charge can be measured; the relay drops that chunk.
      const options = isRecord(body.stream_options) ? body.stream_options : {};
      upstreamBody.stream_options = { ...options, include_usage: true };
    }
    return {
      url: joinUrl(target.baseUrl, '/chat/completions'),
      headers: { 'content-type': 'application/json', ...openaiAuthorization(target) },
      body: upstreamRequestJson(upstreamBody, chatRewrites),
    };
  },
  modelList: openaiUpstreamModelList,
  minimalGeneration: { messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
  usageOfAnswer: usageOfChatAnswer,
  parseAnswer: parseChatAnswer,
  parseEvent: parseChatStreamEvent,
  isFailure: (event) => event.type === 'error',
  // `[DONE]`, or the chunk with a finish reason before it (the usage chunk may follow): an engine that leaves out
  // `[DONE]` still ends its answer so.
  endsAnswer: (event) =>
    event.type === 'done' ||
    (event.type === 'chunk' && (event.chunk.choices ?? []).some((choice) => Boolean(choice.finish_reason))),
  createUsageReader: createChatStreamUsageReader,
};
