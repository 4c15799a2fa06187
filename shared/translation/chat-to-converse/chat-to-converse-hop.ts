import { parseRequest } from '../../http/parse-request.ts';
import { messagesErrorTypeOf } from '../../wires/bedrock/bedrock-errors.ts';
import type { ConverseAnswer } from '../../wires/bedrock-converse/bedrock-converse-answer.ts';
import type { ConverseRequest } from '../../wires/bedrock-converse/bedrock-converse-request.ts';
import type { ConverseStreamEvent } from '../../wires/bedrock-converse/bedrock-converse-stream-event.ts';
import { parseConverseError } from '../../wires/bedrock-converse/bedrock-converse-upstream-error.ts';
import { type ChatCompletion, chatCompletionId } from '../../wires/openai-chat/openai-chat-answer.ts';
import { openaiErrorBody } from '../../wires/openai-chat/openai-chat-error.ts';
import {
  type ChatRequest,
  includesUsage,
  translatableChatRequestSchema,
} from '../../wires/openai-chat/openai-chat-request.ts';
import type { ChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import type { TranslationHop } from '../translation-hop.ts';
import { createConverseToChatTransformer } from './converse-to-chat-stream.ts';
import { convertConverseAnswerToChat } from './convert-from-converse-answer.ts';
import { convertChatRequestToConverse } from './convert-to-converse-request.ts';

/**
 * Chat Completions → Bedrock's Converse API: every Bedrock model but Anthropic's. The output allowance is always the
 * `maxTokens` sent. Responses and messages clients reach Converse through this hop, from chat (the hub).
 */
export const chatToConverseHop: TranslationHop<
  ChatRequest,
  ConverseRequest,
  ConverseAnswer,
  ChatCompletion,
  ConverseStreamEvent,
  ChatStreamEvent
> = {
  translate(chatRequest, context) {
    const answerIdentity = {
      id: chatCompletionId(context.requestId),
      model: context.publicModel,
      created: Math.floor(context.createdAt.getTime() / 1000),
    };
    return {
      request: convertChatRequestToConverse(parseRequest(translatableChatRequestSchema, chatRequest), {
        outputAllowance: context.outputAllowance,
      }),
      convertAnswer: (answer) => convertConverseAnswerToChat(answer, answerIdentity),
      convertError(upstreamText) {
        // The kind of error as every client's SDK knows it (`rate_limit_error`, `overloaded_error`…, as on Bedrock's
        // messages path), Bedrock's own exception name as the code: a messages client's hop keeps the type.
        const details = parseConverseError(upstreamText);
        return JSON.stringify(
          openaiErrorBody({
            message: details?.message ?? 'The upstream provider returned an error.',
            type: messagesErrorTypeOf(details?.type, undefined),
            code: details?.type ?? null,
          }),
        );
      },
      streamTransformer: () =>
        createConverseToChatTransformer({
          ...answerIdentity,
          includeUsage: includesUsage(chatRequest),
          thinkingBlocksAsTheyClose: !context.nearestTheClient,
        }),
    };
  },
};
