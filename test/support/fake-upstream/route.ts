import { anthropicMessagesWire } from './anthropic-messages.ts';
import { geminiWire } from './gemini.ts';
import { openAiChatWire } from './openai-chat.ts';
import { openAiResponsesWire } from './openai-responses.ts';
import type { FakeWire, StreamMode } from './wire-reply.ts';

export interface FakeUpstreamRoute {
  wire: FakeWire;
  operation: 'generate' | 'count-tokens' | 'model-list';
  /** Generate-content names the model in the path, not the body. */
  model: string | undefined;
  /** Generate-content chooses streaming by path; the other wires by `stream` in the body. */
  streamModeFromPath: StreamMode | undefined;
}

const generateContentPath = /\/models\/(.+):(generateContent|streamGenerateContent|countTokens)$/;

/**
 * Matches on the path's end, so any base path (`/v1`, `/api/paas/v4`, `/prefix/v1beta`) works. A model list
 * (`GET …/models`) is told apart by the credential header each vendor's SDK sends: `x-goog-api-key` is
 * generate-content's, `anthropic-version` the messages API's, anything else OpenAI's.
 */
export function routeFor(
  method: string,
  path: string,
  query: Record<string, string>,
  headers: Readonly<Record<string, string>>,
): FakeUpstreamRoute | undefined {
  if (method === 'GET') {
    if (!path.endsWith('/models')) return undefined;
    const wire =
      headers['x-goog-api-key'] !== undefined
        ? geminiWire
        : headers['anthropic-version'] !== undefined
          ? anthropicMessagesWire
          : openAiChatWire;
    return { wire, operation: 'model-list', model: undefined, streamModeFromPath: undefined };
  }
  if (method !== 'POST') return undefined;
  const route = (wire: FakeWire, operation: FakeUpstreamRoute['operation'] = 'generate'): FakeUpstreamRoute => ({
    wire,
    operation,
    model: undefined,
    streamModeFromPath: undefined,
  });
  if (path.endsWith('/chat/completions')) return route(openAiChatWire);
  if (path.endsWith('/responses')) return route(openAiResponsesWire);
  if (path.endsWith('/messages/count_tokens')) return route(anthropicMessagesWire, 'count-tokens');
  if (path.endsWith('/messages')) return route(anthropicMessagesWire);
  const generateContent = generateContentPath.exec(path);
  if (generateContent) {
    if (generateContent[2] === 'countTokens') {
      return { wire: geminiWire, operation: 'count-tokens', model: generateContent[1], streamModeFromPath: 'none' };
    }
    const streamed = generateContent[2] === 'streamGenerateContent';
    return {
      wire: geminiWire,
      operation: 'generate',
      model: generateContent[1],
      streamModeFromPath: streamed ? (query['alt'] === 'sse' ? 'sse' : 'json-array') : 'none',
    };
  }
  return undefined;
}
