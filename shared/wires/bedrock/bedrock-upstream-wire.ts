import type { Readable } from 'node:stream';
import { GatewayError } from '../../http/gateway-error.ts';
import { withMessagesOutputCap } from '../anthropic-messages/anthropic-messages-spend-bounds.ts';
import {
  anthropicMessagesUpstreamWire,
  messagesRewrites,
} from '../anthropic-messages/anthropic-messages-upstream-wire.ts';
import { parseJson } from '../parse-json.ts';
import { upstreamRequestJson } from '../upstream-request-json.ts';
import type { UpstreamHttpRequest, UpstreamTarget, UpstreamWireFormat } from '../upstream-wire-format.ts';
import { bedrockErrorText } from './bedrock-errors.ts';
import { bedrockAnthropicVersion, bedrockModelUrl, foundationModelOf } from './bedrock-runtime-api.ts';
import { loadBedrockTransport } from './load-bedrock-transport.ts';

/** Bedrock's streamed answers: AWS's binary event stream, one `chunk` frame per messages event. */
export const bedrockEventStreamContentType = 'application/vnd.amazon.eventstream';

/**
 * The messages body as Bedrock's InvokeModel takes it: the model in the path, not the body; no `stream` (the path
 * says it); the version Bedrock pins as `anthropic_version`; the client's beta flags as `anthropic_beta`.
 */
function invokeBody(
  body: Record<string, unknown>,
  forwarded: Readonly<Record<string, string>> | undefined,
): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = body;
  const betas = forwarded?.['anthropic-beta']
    ?.split(',')
    .map((flag) => flag.trim())
    .filter((flag) => flag.length > 0);
  return {
    anthropic_version: bedrockAnthropicVersion,
    ...rest,
    ...(betas && betas.length > 0 ? { anthropic_beta: betas } : {}),
  };
}

function requestTo(url: string, target: UpstreamTarget, body: string, stream: boolean): UpstreamHttpRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? bedrockEventStreamContentType : 'application/json',
  };
  // A Bedrock API key, where the account uses them; otherwise `finishRequest` signs with the host's AWS identity.
  if (target.credential !== '') headers.authorization = `Bearer ${target.credential}`;
  return { url, headers, body };
}

/**
 * Anthropic's models on Amazon Bedrock: the messages format end to end (the body as Bedrock takes it, every event
 * the messages events), addressed, signed and framed as Bedrock's runtime is. The signer and the event-stream codec
 * load on first use, so only a process that calls Bedrock pays for them.
 */
export const bedrockUpstreamWire: UpstreamWireFormat<unknown, unknown> = {
  ...(anthropicMessagesUpstreamWire as UpstreamWireFormat<unknown, unknown>),
  wire: 'bedrock',
  // The base URL is the runtime's own address; nothing is appended to it but each operation's path.
  baseUrl: { appendedVersion: undefined, versions: [] },
  forwardedClientHeaders: ['anthropic-beta'],
  forwardedIntoBody: true,
  buildUpstreamRequest({ target, body, upstreamModel, stream, operation, outputCap, forwarded }) {
    const invoke = invokeBody(body, forwarded);
    if (operation === 'count-tokens') {
      // InvokeModel's body, base64, as CountTokens takes it; it wants a cap as InvokeModel does, and a foundation
      // model (an inference profile is refused).
      invoke.max_tokens ??= 1;
      const encoded = Buffer.from(upstreamRequestJson(invoke, messagesRewrites)).toString('base64');
      const url = bedrockModelUrl(target.baseUrl, foundationModelOf(upstreamModel), 'count-tokens');
      return requestTo(url, target, JSON.stringify({ input: { invokeModel: { body: encoded } } }), false);
    }
    const capped = outputCap === undefined ? invoke : { ...invoke, ...withMessagesOutputCap(invoke, outputCap) };
    const url = bedrockModelUrl(target.baseUrl, upstreamModel, stream ? 'invoke-with-response-stream' : 'invoke');
    return requestTo(url, target, upstreamRequestJson(capped, messagesRewrites), stream);
  },
  async finishRequest(request, target) {
    return (await loadBedrockTransport()).signedForBedrock(request, target);
  },
  binaryStream: {
    contentType: bedrockEventStreamContentType,
    async toSse(body: Readable) {
      return (await loadBedrockTransport()).bedrockEventStreamAsSse(body);
    },
  },
  errorText: bedrockErrorText,
  countAnswerText(text) {
    const answer = parseJson(text) as { inputTokens?: unknown } | undefined;
    const tokens = answer?.inputTokens;
    if (typeof tokens !== 'number') {
      throw new GatewayError(502, 'upstream_invalid_answer', 'Bedrock answered the token count without a count.');
    }
    return JSON.stringify({ input_tokens: tokens });
  },
  // The runtime endpoint lists no models: a connection test proves one with a one-token generation.
  modelList: undefined,
};
