import { parseJson } from '../../wires/parse-json.ts';
import type { TranslationContext, TranslationHopImplementation } from '../wire-translation.ts';
import { createChatToResponsesStreamTransform } from './chat-to-responses-stream.ts';
import { convertChatCompletionToResponse } from './convert-from-chat-completion.ts';
import { convertResponsesRequestToChat, responseSettingsOf } from './convert-to-chat-request.ts';
import { type ResponseIdentity, responseId } from './responses-response.ts';

function identityOf(responsesBody: Record<string, unknown>, context: TranslationContext): ResponseIdentity {
  return {
    id: responseId(context.requestId),
    model: context.publicModel,
    createdAt: Math.floor(context.createdAt.getTime() / 1000),
    settings: responseSettingsOf(responsesBody),
  };
}

/**
 * Responses → Chat Completions, for models whose route speaks chat (or messages, through chat). The answer keeps
 * the request's settings, so the hop re-reads them from the client's body for each direction.
 */
export function createResponsesToChatHop(): TranslationHopImplementation {
  let clientBody: Record<string, unknown> = {};
  return {
    produces: 'openai-chat',
    request(body) {
      clientBody = body;
      return convertResponsesRequestToChat(body);
    },
    response: (upstreamText, context) =>
      JSON.stringify(convertChatCompletionToResponse(parseJson(upstreamText), identityOf(clientBody, context))),
    // Chat upstreams answer errors in the OpenAI envelope, which is the Responses envelope too.
    error: (upstreamText) => upstreamText,
    stream: (body, context) => createChatToResponsesStreamTransform(identityOf(body, context)),
  };
}
