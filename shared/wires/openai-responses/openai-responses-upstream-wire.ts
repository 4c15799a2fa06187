import { badRequest } from '../../http/gateway-error.ts';
import { type CallIdPlace, callIdRewrite } from '../../translation/chat-to-messages/reasoning-in-call-id.ts';
import { gatewayItemsRewrite } from '../../translation/responses-to-chat/gateway-made-items.ts';
import { openaiAuthorization, openaiBaseUrl, openaiUpstreamModelList } from '../openai-chat/openai-upstream-api.ts';
import { upstreamRequestJson } from '../upstream-request-json.ts';
import { joinUrl, type UpstreamWireFormat } from '../upstream-wire-format.ts';
import { parseResponsesAnswer, type ResponseAnswer, usageOfResponsesAnswer } from './openai-responses-response.ts';
import { withResponsesOutputCap } from './openai-responses-spend-bounds.ts';
import { parseResponsesStreamEvent, type ResponsesStreamEvent } from './openai-responses-stream-event.ts';
import { createResponsesStreamUsageReader } from './openai-responses-usage.ts';

/** Every input item that names a call: function and custom tool calls and their outputs. */
const responsesCallIdPlaces: readonly CallIdPlace[] = [['input', 'call_id']];
/** A history from the Responses translation also holds the gateway's own reasoning items and item ids. */
const responsesRewrites = [callIdRewrite(responsesCallIdPlaces), gatewayItemsRewrite];

/** The OpenAI Responses API and engines compatible with it. */
export const openaiResponsesUpstreamWire: UpstreamWireFormat<ResponseAnswer, ResponsesStreamEvent> = {
  wire: 'openai-responses',
  baseUrl: openaiBaseUrl,
  forwardedClientHeaders: [],
  buildUpstreamRequest({ target, body, upstreamModel, stream, operation, outputCap }) {
    switch (operation) {
      case 'generate':
        break;
      case 'count-tokens':
        // Routing only sends token counts to messages-format and generate-content upstreams; reaching here is a
        // routing gap, refused rather than sent as a billed generation.
        throw badRequest('unsupported_operation', 'This upstream does not count tokens.');
      default: {
        const unknownOperation: never = operation;
        throw new Error(`no responses request for operation ${String(unknownOperation)}`);
      }
    }
    return {
      url: joinUrl(target.baseUrl, '/responses'),
      // Only the provider credential goes upstream; the client's own headers never reach this function.
      headers: { 'content-type': 'application/json', ...openaiAuthorization(target) },
      body: upstreamRequestJson(
        { ...(outputCap === undefined ? body : withResponsesOutputCap(body, outputCap)), model: upstreamModel, stream },
        responsesRewrites,
      ),
    };
  },
  modelList: openaiUpstreamModelList,
  // 16 is the least `max_output_tokens` the vendor accepts.
  minimalGeneration: { input: 'ping', max_output_tokens: 16 },
  usageOfAnswer: usageOfResponsesAnswer,
  parseAnswer: parseResponsesAnswer,
  parseEvent: parseResponsesStreamEvent,
  // The flat `error` event, or the response's own end as failed.
  isFailure: (event) => event.type === 'error' || event.type === 'response.failed',
  // `response.incomplete` is an answer the provider ended itself (its output cap reached, say), as `completed` is.
  endsAnswer: (event) => event.type === 'response.completed' || event.type === 'response.incomplete',
  createUsageReader: createResponsesStreamUsageReader,
};
