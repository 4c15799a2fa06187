import { parseRequest } from '../../http/parse-request.ts';
import type { ChatCompletionAnswer } from '../../wires/openai-chat/openai-chat-answer.ts';
import type { ChatRequest } from '../../wires/openai-chat/openai-chat-request.ts';
import type { ChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import {
  type ResponsesRequest,
  translatableResponsesRequestSchema,
} from '../../wires/openai-responses/openai-responses-request.ts';
import type { ResponsesResponse } from '../../wires/openai-responses/openai-responses-response.ts';
import type { ResponsesStreamEventOut } from '../../wires/openai-responses/openai-responses-stream-event.ts';
import type { TranslationHop } from '../translation-hop.ts';
import { type ResponseIdentity, responseId } from './build-response.ts';
import { createChatToResponsesTransformer } from './chat-to-responses-stream.ts';
import { convertChatCompletionToResponse } from './convert-from-chat-completion.ts';
import { convertResponsesRequestToChat, responseSettingsOf } from './convert-to-chat-request.ts';

/**
 * Responses → Chat Completions, for models whose route speaks chat (or messages, through chat). The answer and
 * the stream repeat the request's settings, read once here with the request.
 */
export const responsesToChatHop: TranslationHop<
  ResponsesRequest,
  ChatRequest,
  ChatCompletionAnswer,
  ResponsesResponse,
  ChatStreamEvent,
  ResponsesStreamEventOut
> = {
  translate(responsesRequest, context) {
    const request = parseRequest(translatableResponsesRequestSchema, responsesRequest);
    const chatRequest = convertResponsesRequestToChat(request, { maxTokensDefault: context.outputAllowance });
    const identity: ResponseIdentity = {
      id: responseId(context.requestId),
      model: context.publicModel,
      createdAt: Math.floor(context.createdAt.getTime() / 1000),
      settings: responseSettingsOf(request),
    };
    return {
      request: chatRequest,
      convertAnswer: (answer) => convertChatCompletionToResponse(answer, identity),
      // Chat upstreams answer errors in the OpenAI envelope, which is the Responses envelope too.
      convertError: (upstreamText) => upstreamText,
      streamTransformer: () => createChatToResponsesTransformer(identity),
    };
  },
};
