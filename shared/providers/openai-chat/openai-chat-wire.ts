import type { ProviderWire } from '../provider-wire.ts';
import { chatUsageFromBody, createChatStreamUsageReader } from './openai-chat-usage.ts';

/** OpenAI-compatible Chat Completions upstreams (plain, GLM-type, DeepSeek-type). */
export const openaiChatWire: ProviderWire = {
  wire: 'openai-chat',
  buildUpstreamRequest({ target, body, upstreamModel, stream }) {
    const upstreamBody: Record<string, unknown> = { ...body, model: upstreamModel };
    if (stream) {
      // Ask for usage even when the client did not, so the charge can be measured; the relay drops that chunk.
      const options =
        typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
      upstreamBody.stream_options = { ...options, include_usage: true };
    }
    return {
      url: `${trimSlash(target.baseUrl)}/chat/completions`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${target.credential}` },
      body: JSON.stringify(upstreamBody),
    };
  },
  usageFromBody: chatUsageFromBody,
  createStreamUsageReader: createChatStreamUsageReader,
};

export function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}
