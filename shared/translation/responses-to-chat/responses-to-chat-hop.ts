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
import { convertResponsesRequestToChat } from './convert-to-chat-request.ts';

/**
 * Responses → Chat Completions, for every model on a chat connection (and the catalog's messages-route models,
 * through chat). The answer and the stream repeat the request's settings and take the shape it asked for, both
 * read once here with the request.
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
    const { request: chatRequest, settings, form } = convertResponsesRequestToChat(request);
    const identity: ResponseIdentity = {
      id: responseId(context.requestId),
      model: context.publicModel,
      createdAt: Math.floor(context.createdAt.getTime() / 1000),
      settings,
      form,
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
