import { parseRequest } from '../../http/parse-request.ts';
import { type MessagesAnswerOut, messagesAnswerId } from '../../wires/anthropic-messages/anthropic-messages-answer.ts';
import {
  type MessagesRequest,
  translatableMessagesRequestSchema,
} from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { MessagesStreamEventOut } from '../../wires/anthropic-messages/anthropic-messages-stream-event.ts';
import type { ChatCompletionAnswer } from '../../wires/openai-chat/openai-chat-answer.ts';
import type { ChatRequest } from '../../wires/openai-chat/openai-chat-request.ts';
import { type ChatStreamEvent, parseChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import type { TranslationHop } from '../translation-hop.ts';
import { createChatToMessagesTransformer } from './chat-to-messages-stream.ts';
import { convertChatCompletionToMessages } from './convert-from-chat-completion.ts';
import { convertMessagesRequestToChat } from './convert-to-chat-request.ts';

/**
 * Messages → Chat Completions, for models whose route speaks chat: what lets Anthropic-format clients (Claude Code,
 * the Anthropic SDKs, `@ai-sdk/anthropic`) call every chat-format connection.
 */
export const messagesToChatHop: TranslationHop<
  MessagesRequest,
  ChatRequest,
  ChatCompletionAnswer,
  MessagesAnswerOut,
  ChatStreamEvent,
  MessagesStreamEventOut
> = {
  translate(messagesRequest, context) {
    const request = parseRequest(translatableMessagesRequestSchema, messagesRequest);
    const identity = { id: messagesAnswerId(context.requestId), model: context.publicModel };
    return {
      request: convertMessagesRequestToChat(request),
      convertAnswer: (answer) => convertChatCompletionToMessages(answer, identity),
      convertError(upstreamText) {
        // Chat upstreams answer errors in the OpenAI envelope; the client's SDK reads the messages one.
        const event = parseChatStreamEvent({ event: undefined, data: upstreamText });
        const error = event?.type === 'error' ? event.error : undefined;
        return JSON.stringify({
          type: 'error',
          error: {
            type: error?.type ?? 'api_error',
            message: error?.message ?? 'The upstream provider returned an error.',
          },
        });
      },
      streamTransformer: () => createChatToMessagesTransformer(identity),
    };
  },
};
