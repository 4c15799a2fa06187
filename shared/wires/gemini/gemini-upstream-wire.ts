import { isRecord } from '../parse-json.ts';
import type { UpstreamWireFormat, WireOperation } from '../upstream-wire-format.ts';
import { type GeminiResponse, parseGeminiAnswer, usageOfGeminiAnswer } from './gemini-response.ts';
import { withGeminiOutputCap } from './gemini-spend-bounds.ts';
import { type GeminiStreamEvent, parseGeminiStreamEvent } from './gemini-stream-event.ts';
import {
  generateContentApiUrl,
  generateContentAuthentication,
  generateContentBaseUrl,
  generateContentUpstreamModelList,
} from './gemini-upstream-api.ts';
import { createGeminiStreamUsageReader } from './gemini-usage.ts';

/**
 * The model is a path segment, `models/{model}`. A name that already carries the `models/` prefix (the form the
 * vendor itself returns from its model list) is accepted without doubling it; the rest is encoded so a name can
 * never add a path segment or a query.
 */
function modelPath(baseUrl: string, upstreamModel: string): string {
  const name = upstreamModel.startsWith('models/') ? upstreamModel.slice('models/'.length) : upstreamModel;
  return generateContentApiUrl(baseUrl, `/models/${encodeURIComponent(name)}`);
}

/** `alt=sse` is what makes the stream server-sent events; without it the vendor streams one long JSON array. */
export function buildGeminiGenerateContentUrl(baseUrl: string, upstreamModel: string, stream: boolean): string {
  const path = modelPath(baseUrl, upstreamModel);
  return stream ? `${path}:streamGenerateContent?alt=sse` : `${path}:generateContent`;
}

export function buildGeminiCountTokensUrl(baseUrl: string, upstreamModel: string): string {
  return `${modelPath(baseUrl, upstreamModel)}:countTokens`;
}

function geminiUrl(baseUrl: string, upstreamModel: string, stream: boolean, operation: WireOperation): string {
  switch (operation) {
    case 'generate':
      return buildGeminiGenerateContentUrl(baseUrl, upstreamModel, stream);
    case 'count-tokens':
      return buildGeminiCountTokensUrl(baseUrl, upstreamModel);
    default: {
      const unknownOperation: never = operation;
      throw new Error(`no generate-content URL for operation ${String(unknownOperation)}`);
    }
  }
}

/**
 * A token count that carries generation settings wraps them in `generateContentRequest`, which must name its model
 * (`models/{model}`) in the body; the client named its own model there, so it is rewritten like the path.
 */
function rewriteNestedModel(body: Record<string, unknown>, upstreamModel: string): void {
  const nested = body.generateContentRequest;
  if (!isRecord(nested) || !('model' in nested)) return;
  const name = upstreamModel.startsWith('models/') ? upstreamModel : `models/${upstreamModel}`;
  body.generateContentRequest = { ...nested, model: name };
}

/** The generate-content vendor API and engines compatible with it. */
export const geminiUpstreamWire: UpstreamWireFormat<GeminiResponse, GeminiStreamEvent> = {
  wire: 'gemini',
  baseUrl: generateContentBaseUrl,
  forwardedClientHeaders: [],
  buildUpstreamRequest({ target, body, upstreamModel, stream, operation, outputCap }) {
    // The model travels in the path; a `model` in the body would name the client's model, not the upstream's.
    const { model: _clientModel, ...rest } = body;
    const upstreamBody =
      operation === 'generate' && outputCap !== undefined ? withGeminiOutputCap(rest, outputCap) : rest;
    if (operation === 'count-tokens') rewriteNestedModel(upstreamBody, upstreamModel);
    return {
      url: geminiUrl(target.baseUrl, upstreamModel, stream, operation),
      headers: { 'content-type': 'application/json', ...generateContentAuthentication(target) },
      body: JSON.stringify(upstreamBody),
    };
  },
  modelList: generateContentUpstreamModelList,
  minimalGeneration: {
    contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
    generationConfig: { maxOutputTokens: 1 },
  },
  usageOfAnswer: usageOfGeminiAnswer,
  parseAnswer: parseGeminiAnswer,
  parseEvent: parseGeminiStreamEvent,
  isFailure: (event) => event.type === 'error',
  // Google's stream has no closing event: its last chunk carries a finish reason, or the prompt's block reason.
  endsAnswer: (event) =>
    event.type === 'chunk' &&
    ((event.chunk.candidates ?? []).some((candidate) => Boolean(candidate.finishReason)) ||
      Boolean(event.chunk.promptFeedback?.blockReason)),
  createUsageReader: createGeminiStreamUsageReader,
};
