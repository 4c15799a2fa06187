import { parseRequest } from '../../http/parse-request.ts';
import type { MessagesAnswer } from '../../wires/anthropic-messages/anthropic-messages-answer.ts';
import type { MessagesRequest } from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { MessagesStreamEvent } from '../../wires/anthropic-messages/anthropic-messages-stream-event.ts';
import { parseAnthropicMessagesError } from '../../wires/anthropic-messages/anthropic-messages-upstream-error.ts';
import { type ChatCompletion, chatCompletionId } from '../../wires/openai-chat/openai-chat-answer.ts';
import { openaiErrorBody } from '../../wires/openai-chat/openai-chat-error.ts';
import {
  type ChatRequest,
  includesUsage,
  translatableChatRequestSchema,
} from '../../wires/openai-chat/openai-chat-request.ts';
import type { ChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import type { TranslationHop } from '../translation-hop.ts';
import { convertMessagesAnswerToChat } from './convert-from-messages-answer.ts';
import { convertChatRequestToMessages } from './convert-to-messages-request.ts';
import { createMessagesToChatTransformer } from './messages-to-chat-stream.ts';

/**
 * Chat Completions → messages format: the K2.7 route, whose upstream speaks messages. The output allowance is the
 * `max_tokens` sent where the client stated none; thinking mode's rules follow in messages form (thinking-mode.ts).
 */
export const chatToMessagesHop: TranslationHop<
  ChatRequest,
  MessagesRequest,
  MessagesAnswer,
  ChatCompletion,
  MessagesStreamEvent,
  ChatStreamEvent
> = {
  translate(chatRequest, context) {
    const answerIdentity = {
      id: chatCompletionId(context.requestId),
      model: context.publicModel,
      created: Math.floor(context.createdAt.getTime() / 1000),
    };
    return {
      request: convertChatRequestToMessages(parseRequest(translatableChatRequestSchema, chatRequest), {
        upstreamModel: context.upstreamModel,
        maxTokensDefault: context.outputAllowance,
      }),
      convertAnswer: (answer) => convertMessagesAnswerToChat(answer, answerIdentity),
      convertError(upstreamText) {
        const details = parseAnthropicMessagesError(upstreamText);
        return JSON.stringify(
          openaiErrorBody({
            message: details?.message ?? 'The upstream provider returned an error.',
            type: details?.type ?? 'api_error',
            code: null,
          }),
        );
      },
      streamTransformer: () =>
        createMessagesToChatTransformer({
          ...answerIdentity,
          includeUsage: includesUsage(chatRequest),
          thinkingBlocksAsTheyClose: !context.nearestTheClient,
        }),
    };
  },
};
