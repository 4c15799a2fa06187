import type { FakeUsage } from './behaviour.ts';
import { chatCallIdRefusal } from './call-id-limits.ts';
import { arrayAt, isRecord, type JsonRecord, recordAt, stringAt, textOfContent } from './json-fields.ts';
import { countAt, largestOf } from './most-allowed-usage.ts';
import {
  type AnswerPlan,
  type FakeError,
  type FakeWire,
  fakeCreatedAtSeconds,
  type LastTurn,
  nthCallSuffix,
  splitIntoPieces,
  sseData,
  type WireReply,
} from './wire-reply.ts';

/** OpenAI chat completions: https://platform.openai.com/docs/api-reference/chat */
export const openAiChatWire: FakeWire = {
  name: 'openai-chat',

  lastTurn(request: JsonRecord): LastTurn {
    const messages = arrayAt(request, 'messages');
    const last = messages.at(-1);
    if (stringAt(last, 'role') === 'tool') return { text: contentOf(last), isToolResult: true };
    const lastUser = messages.findLast((message) => stringAt(message, 'role') === 'user');
    return { text: contentOf(lastUser), isToolResult: false };
  },

  /**
   * The most a compatible engine may produce for the request: it reads `max_tokens`, and some (Ollama, LM Studio,
   * DeepSeek- and GLM-type APIs) no other, so without it the answer is unbounded whatever `max_completion_tokens`
   * says; one that reads both is held to the larger.
   */
  outputLimit(request: JsonRecord) {
    const maxTokens = countAt(request, 'max_tokens');
    return {
      perAnswer: maxTokens === undefined ? undefined : largestOf(maxTokens, countAt(request, 'max_completion_tokens')),
      answers: countAt(request, 'n') ?? 1,
    };
  },

  refusal: chatCallIdRefusal,

  offeredToolName(request: JsonRecord): string | undefined {
    if (request['tool_choice'] === 'none') return undefined;
    const forced = stringAt(recordAt(request['tool_choice'], 'function'), 'name');
    return forced ?? stringAt(recordAt(arrayAt(request, 'tools')[0], 'function'), 'name');
  },

  answer(plan: AnswerPlan): WireReply {
    return plan.streamMode === 'none'
      ? { kind: 'json', status: 200, body: completion(plan) }
      : { kind: 'stream', contentType: 'text/event-stream; charset=utf-8', frames: completionChunks(plan) };
  },

  errorBody(error: FakeError): unknown {
    return {
      error: {
        message: error.message,
        type: errorType(error.status),
        param: error.param ?? null,
        code: error.code === undefined ? errorCode(error.status) : error.code,
      },
    };
  },

  streamErrorFrame(error: FakeError): string {
    return sseData({ error: { message: error.message, type: errorType(error.status), param: null, code: null } });
  },

  // https://platform.openai.com/docs/api-reference/models/list
  modelListBody: (ids) => ({
    object: 'list',
    data: ids.map((id) => ({ id, object: 'model', created: fakeCreatedAtSeconds, owned_by: 'fake' })),
  }),
};

function contentOf(message: unknown): string {
  return textOfContent(isRecord(message) ? message['content'] : undefined);
}

function completion(plan: AnswerPlan): unknown {
  const toolCalls =
    plan.toolCalls.length > 0
      ? plan.toolCalls.map(({ name, arguments: argumentText }, position) => ({
          id: callId(plan, position),
          type: 'function',
          function: { name, arguments: argumentText },
        }))
      : undefined;
  return {
    id: completionId(plan),
    object: 'chat.completion',
    created: fakeCreatedAtSeconds,
    model: plan.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls ? null : plan.text,
          refusal: null,
          ...(plan.reasoning !== undefined && { reasoning_content: plan.reasoning }),
          ...(toolCalls && { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: toolCalls ? 'tool_calls' : 'stop',
      },
    ],
    ...(plan.usage && { usage: chatUsage(plan.usage) }),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

function completionChunks(plan: AnswerPlan): string[] {
  const includeUsage = recordAt(plan.request, 'stream_options')?.['include_usage'] === true;
  // With include_usage the real API sends `usage: null` on every chunk and the figures on a last, choiceless one.
  const chunk = (delta: JsonRecord, finishReason: string | null = null) =>
    sseData({
      id: completionId(plan),
      object: 'chat.completion.chunk',
      created: fakeCreatedAtSeconds,
      model: plan.model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage && { usage: null }),
    });

  const frames: string[] = [];
  if (plan.reasoning !== undefined) {
    frames.push(chunk({ role: 'assistant', content: null, reasoning_content: '' }));
    for (const piece of splitIntoPieces(plan.reasoning, 2)) frames.push(chunk({ reasoning_content: piece }));
  }
  if (plan.toolCalls.length > 0) {
    // Each call whole before the next, its own `index` on every fragment, as the vendor streams parallel calls.
    for (const [index, { name, arguments: argumentText }] of plan.toolCalls.entries()) {
      const header = { index, id: callId(plan, index), type: 'function', function: { name, arguments: '' } };
      frames.push(chunk({ ...(index === 0 && { role: 'assistant', content: null }), tool_calls: [header] }));
      for (const fragment of splitIntoPieces(argumentText, 3)) {
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
      }
    }
    frames.push(chunk({}, 'tool_calls'));
  } else {
    frames.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const piece of plan.textChunks) frames.push(chunk({ content: piece }));
    frames.push(chunk({}, 'stop'));
  }
  if (includeUsage && plan.usage) {
    frames.push(
      sseData({
        id: completionId(plan),
        object: 'chat.completion.chunk',
        created: fakeCreatedAtSeconds,
        model: plan.model,
        system_fingerprint: 'fp_fake',
        choices: [],
        usage: chatUsage(plan.usage),
      }),
    );
  }
  frames.push('data: [DONE]\n\n');
  return frames;
}

function chatUsage(usage: FakeUsage): unknown {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function completionId(plan: AnswerPlan): string {
  return `chatcmpl-fake-${plan.requestIndex}`;
}

function callId(plan: AnswerPlan, position: number): string {
  return `call_fake_${plan.requestIndex}${nthCallSuffix(position)}`;
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function errorCode(status: number): string | null {
  if (status === 401) return 'invalid_api_key';
  if (status === 404) return 'model_not_found';
  if (status === 429) return 'rate_limit_exceeded';
  return null;
}
