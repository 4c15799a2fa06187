import type { FakeUsage } from './behaviour.ts';
import { arrayAt, isRecord, type JsonRecord, recordAt, stringAt } from './json-fields.ts';
import { countAt, largestOf } from './most-allowed-usage.ts';
import type { AnswerPlan, FakeError, FakeWire, LastTurn, WireReply } from './wire-reply.ts';

/** Gemini generate-content: https://ai.google.dev/api/generate-content */
export const geminiWire: FakeWire = {
  name: 'gemini',

  lastTurn(request: JsonRecord): LastTurn {
    const contents = arrayAt(request, 'contents');
    const lastParts = arrayAt(contents.at(-1), 'parts');
    const functionResponses = lastParts.filter((part) => isRecord(part) && 'functionResponse' in part);
    if (functionResponses.length > 0) return { text: JSON.stringify(functionResponses), isToolResult: true };
    // A content without a role is the user's.
    const lastUser = contents.findLast((content) => (stringAt(content, 'role') ?? 'user') === 'user');
    const text = arrayAt(lastUser, 'parts')
      .map((part) => stringAt(part, 'text') ?? '')
      .join('');
    return { text, isToolResult: false };
  },

  // The vendor reads both spellings of each field (protobuf JSON); thoughts count against maxOutputTokens.
  outputLimit(request: JsonRecord) {
    const configs = [recordAt(request, 'generationConfig'), recordAt(request, 'generation_config')];
    return {
      perAnswer: largestOf(
        ...configs.flatMap((config) => [countAt(config, 'maxOutputTokens'), countAt(config, 'max_output_tokens')]),
      ),
      answers:
        largestOf(
          ...configs.flatMap((config) => [countAt(config, 'candidateCount'), countAt(config, 'candidate_count')]),
        ) ?? 1,
    };
  },

  offeredToolName(request: JsonRecord): string | undefined {
    const callingConfig = recordAt(recordAt(request, 'toolConfig'), 'functionCallingConfig');
    if (stringAt(callingConfig, 'mode') === 'NONE') return undefined;
    const allowed = arrayAt(callingConfig, 'allowedFunctionNames')[0];
    if (typeof allowed === 'string') return allowed;
    const declarations = arrayAt(request, 'tools').flatMap((tool) => arrayAt(tool, 'functionDeclarations'));
    return stringAt(declarations[0], 'name');
  },

  answer(plan: AnswerPlan): WireReply {
    switch (plan.streamMode) {
      case 'none':
        return { kind: 'json', status: 200, body: finalChunk(plan, plan.toolCalls.length > 0 ? [] : [plan.text]) };
      case 'sse':
        // Generate-content separates events with CRLF pairs, unlike the other wires.
        return {
          kind: 'stream',
          contentType: 'text/event-stream',
          frames: streamChunks(plan).map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`),
        };
      case 'json-array':
        return {
          kind: 'stream',
          contentType: 'application/json; charset=UTF-8',
          frames: [
            ...streamChunks(plan).map((chunk, index) => `${index === 0 ? '[' : ',\r\n'}${JSON.stringify(chunk)}`),
            ']',
          ],
        };
      default: {
        const unknownMode: never = plan.streamMode;
        throw new Error(`unknown stream mode ${String(unknownMode)}`);
      }
    }
  },

  errorBody(error: FakeError): unknown {
    return { error: { code: error.status, message: error.message, status: rpcStatus(error.status) } };
  },

  streamErrorFrame(error: FakeError): string {
    return `data: ${JSON.stringify(geminiWire.errorBody(error))}\r\n\r\n`;
  },

  // https://ai.google.dev/api/tokens#method:-models.counttokens
  countTokensBody: (usage) => ({
    totalTokens: usage?.inputTokens ?? 0,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage?.inputTokens ?? 0 }],
  }),

  // https://ai.google.dev/api/models#method:-models.list
  modelListBody: (ids) => ({
    models: ids.map((id) => ({
      name: `models/${id}`,
      displayName: id,
      inputTokenLimit: 1_048_576,
      outputTokenLimit: 8_192,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
    })),
  }),
};

/** Every chunk carries usage so far; the last one carries the totals and the finish reason. */
function streamChunks(plan: AnswerPlan): unknown[] {
  if (plan.toolCalls.length > 0) return [finalChunk(plan, [])];
  const pieces = plan.textChunks.length > 0 ? plan.textChunks : [''];
  return pieces.map((piece, index) => {
    if (index === pieces.length - 1) return finalChunk(plan, [piece]);
    const outputSoFar = plan.usage && Math.round((plan.usage.outputTokens * (index + 1)) / pieces.length);
    return {
      candidates: [{ content: { parts: [{ text: piece }], role: 'model' }, index: 0 }],
      ...(plan.usage && { usageMetadata: usageMetadata(plan.usage, outputSoFar ?? 0) }),
      modelVersion: plan.model,
      responseId: responseId(plan),
    };
  });
}

function finalChunk(plan: AnswerPlan, texts: readonly string[]): unknown {
  const parts =
    plan.toolCalls.length > 0
      ? plan.toolCalls.map((call) => ({
          functionCall: { name: call.name, args: JSON.parse(call.arguments) as unknown },
        }))
      : texts.map((text) => ({ text }));
  return {
    candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', index: 0 }],
    ...(plan.usage && { usageMetadata: usageMetadata(plan.usage, plan.usage.outputTokens) }),
    modelVersion: plan.model,
    responseId: responseId(plan),
  };
}

/** Cached content is a part of the prompt count here, as in the gateway's figures; it is absent when zero. */
function usageMetadata(usage: FakeUsage, outputTokens: number): unknown {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: outputTokens,
    totalTokenCount: usage.inputTokens + outputTokens,
    ...(usage.cachedInputTokens > 0 && { cachedContentTokenCount: usage.cachedInputTokens }),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.inputTokens }],
  };
}

function responseId(plan: AnswerPlan): string {
  return `fake-response-${plan.requestIndex}`;
}

/** google.rpc.Code names. */
function rpcStatus(status: number): string {
  switch (status) {
    case 400:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}
