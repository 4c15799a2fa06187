import { isRecord } from '../parse-json.ts';
import { cappedAt } from '../spend-bounds.ts';
import { joinUrl, type UpstreamWireFormat } from '../upstream-wire-format.ts';
import { type ConverseAnswer, parseConverseAnswer, usageOfConverseAnswer } from './bedrock-converse-answer.ts';
import { type ConverseStreamEvent, parseConverseStreamEvent } from './bedrock-converse-stream-event.ts';
import { createConverseStreamUsageReader } from './bedrock-converse-usage.ts';

/**
 * The Converse path of a model: its id is one path segment, encoded, since Bedrock's ids hold `:` and inference
 * profile ARNs hold `/` (`us.amazon.nova-lite-v1:0` → `/model/us.amazon.nova-lite-v1%3A0/converse`).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_RequestSyntax
 */
export function converseUrl(baseUrl: string, upstreamModel: string, stream: boolean): string {
  return joinUrl(baseUrl, `/model/${encodeURIComponent(upstreamModel)}/${stream ? 'converse-stream' : 'converse'}`);
}

/** `inferenceConfig.maxTokens` caps everything the model writes, reasoning included; never above the allowance. */
export function withConverseOutputCap(body: Record<string, unknown>, cap: number): Record<string, unknown> {
  const inferenceConfig = isRecord(body.inferenceConfig) ? body.inferenceConfig : {};
  return { ...body, inferenceConfig: { ...inferenceConfig, maxTokens: cappedAt(inferenceConfig.maxTokens, cap) } };
}

/**
 * Bedrock's Converse API, for the models of every family but Anthropic's (whose messages format Bedrock takes as
 * it is). This is the format alone: the request is built unsigned and unframed. The Bedrock transport signs it
 * (SigV4, service `bedrock`, or a Bedrock API key as a bearer token), decodes the binary event stream into the JSON
 * events `parseEvent` reads, and maps `x-amzn-ErrorType` errors; a connection reaches this wire through it.
 */
export const bedrockConverseUpstreamWire: UpstreamWireFormat<ConverseAnswer, ConverseStreamEvent> = {
  wire: 'bedrock-converse',
  // The regional endpoint (`https://bedrock-runtime.<region>.amazonaws.com`) carries no version segment.
  baseUrl: { appendedVersion: undefined, versions: [] },
  // Nothing of a client's headers is Converse's: no client speaks this wire.
  forwardedClientHeaders: [],
  buildUpstreamRequest({ target, body, upstreamModel, stream, operation, outputCap }) {
    if (operation !== 'generate') throw new Error(`no Converse request for operation ${operation}`);
    // The model and the streaming choice are the path's; Converse refuses fields it does not know.
    const { model: _model, stream: _stream, ...converse } = body;
    const capped = outputCap === undefined ? converse : withConverseOutputCap(converse, outputCap);
    return {
      url: converseUrl(target.baseUrl, upstreamModel, stream),
      headers: {
        'content-type': 'application/json',
        accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
      },
      body: JSON.stringify(capped),
    };
  },
  modelList: {
    // Bedrock's runtime endpoint lists no models (the list is the control plane's, another endpoint and
    // permission): a Bedrock connection is proven by a one-token generation instead (`minimalGeneration`).
    request() {
      throw new Error("Bedrock's runtime endpoint has no model list; test a Bedrock connection with a generation.");
    },
    read: () => undefined,
  },
  minimalGeneration: { messages: [{ role: 'user', content: [{ text: 'ping' }] }], inferenceConfig: { maxTokens: 1 } },
  usageOfAnswer: usageOfConverseAnswer,
  parseAnswer: parseConverseAnswer,
  parseEvent: parseConverseStreamEvent,
  isFailure: (event) => event.type === 'exception',
  // `messageStop`, or the `metadata` (the usage) that follows it.
  endsAnswer: (event) => event.type === 'messageStop' || event.type === 'metadata',
  createUsageReader: createConverseStreamUsageReader,
};
