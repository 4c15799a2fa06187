import type { FakeUsage } from './behaviour.ts';
import { responsesCallIdRefusal } from './call-id-limits.ts';
import { arrayAt, isRecord, type JsonRecord, recordAt, stringAt, textOfContent } from './json-fields.ts';
import { countAt } from './most-allowed-usage.ts';
import { openAiChatWire } from './openai-chat.ts';
import { encryptedReasoning, responsesReasoningRefusal } from './responses-reasoning.ts';
import {
  type AnswerPlan,
  type FakeError,
  type FakeWire,
  fakeCreatedAtSeconds,
  type LastTurn,
  nthCallSuffix,
  splitIntoPieces,
  sseEvent,
  type WireReply,
} from './wire-reply.ts';

/** OpenAI responses: https://platform.openai.com/docs/api-reference/responses-streaming */
export const openAiResponsesWire: FakeWire = {
  name: 'openai-responses',

  lastTurn(request: JsonRecord): LastTurn {
    const input = request['input'];
    if (typeof input === 'string') return { text: input, isToolResult: false };
    const items = Array.isArray(input) ? input : [];
    const last = items.at(-1);
    if (stringAt(last, 'type') === 'function_call_output') {
      return { text: stringAt(last, 'output') ?? '', isToolResult: true };
    }
    const lastUser = items.findLast((item) => stringAt(item, 'role') === 'user');
    return { text: textOfContent(isRecord(lastUser) ? lastUser['content'] : undefined), isToolResult: false };
  },

  outputLimit: (request: JsonRecord) => ({ perAnswer: countAt(request, 'max_output_tokens'), answers: 1 }),

  refusal: (request: JsonRecord) => responsesCallIdRefusal(request) ?? responsesReasoningRefusal(request),

  offeredToolName(request: JsonRecord): string | undefined {
    if (request['tool_choice'] === 'none') return undefined;
    const functionTools = arrayAt(request, 'tools').filter((tool) => stringAt(tool, 'type') === 'function');
    return stringAt(recordAt(request, 'tool_choice'), 'name') ?? stringAt(functionTools[0], 'name');
  },

  answer(plan: AnswerPlan): WireReply {
    return plan.streamMode === 'none'
      ? { kind: 'json', status: 200, body: response(plan, 'completed') }
      : { kind: 'stream', contentType: 'text/event-stream; charset=utf-8', frames: responseEvents(plan) };
  },

  // Both OpenAI wires share one error envelope and one model list.
  errorBody: openAiChatWire.errorBody,
  modelListBody: openAiChatWire.modelListBody,

  streamErrorFrame(error: FakeError, chunkIndex: number): string {
    return sseEvent('error', {
      type: 'error',
      code: error.status === 429 ? 'rate_limit_exceeded' : 'server_error',
      message: error.message,
      param: null,
      sequence_number: chunkIndex,
    });
  },
};

function response(plan: AnswerPlan, status: 'in_progress' | 'completed'): unknown {
  const completed = status === 'completed';
  return {
    id: `resp_fake_${plan.requestIndex}`,
    object: 'response',
    created_at: fakeCreatedAtSeconds,
    status,
    error: null,
    incomplete_details: null,
    instructions: stringAt(plan.request, 'instructions') ?? null,
    max_output_tokens: plan.request['max_output_tokens'] ?? null,
    model: plan.model,
    output: completed ? outputItems(plan, 'completed') : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: arrayAt(plan.request, 'tools'),
    top_p: 1,
    truncation: 'disabled',
    metadata: {},
    // Snapshots before completion carry `usage: null`; a completed response without usage omits it.
    ...(completed ? plan.usage && { usage: responsesUsage(plan.usage) } : { usage: null }),
  };
}

/** The answer's output: its reasoning where it has some, then a message or one function call item per tool call. */
function outputItems(plan: AnswerPlan, status: 'in_progress' | 'completed'): unknown[] {
  const reasoning = plan.reasoning === undefined ? [] : [reasoningItem(plan, plan.reasoning, status)];
  return [...reasoning, ...answerItems(plan, status)];
}

/**
 * The vendor shows a summary of the reasoning only when the request asks for one (`reasoning.summary`), and the
 * reasoning itself only encrypted, when `include` asks for it.
 */
function reasoningItem(plan: AnswerPlan, text: string, status: 'in_progress' | 'completed'): JsonRecord {
  const completed = status === 'completed';
  const summarised = completed && typeof recordAt(plan.request, 'reasoning')?.['summary'] === 'string';
  const encrypted = arrayAt(plan.request, 'include').includes('reasoning.encrypted_content');
  return {
    type: 'reasoning',
    id: reasoningItemId(plan),
    summary: summarised ? [{ type: 'summary_text', text }] : [],
    ...(completed && encrypted ? { encrypted_content: encryptedReasoning(text) } : {}),
  };
}

function answerItems(plan: AnswerPlan, status: 'in_progress' | 'completed'): unknown[] {
  const completed = status === 'completed';
  if (plan.toolCalls.length > 0) {
    return plan.toolCalls.map((call, position) => ({
      type: 'function_call',
      id: functionCallItemId(plan, position),
      call_id: `call_fake_${plan.requestIndex}${nthCallSuffix(position)}`,
      name: call.name,
      arguments: completed ? call.arguments : '',
      status,
    }));
  }
  return [
    {
      type: 'message',
      id: messageItemId(plan),
      status,
      role: 'assistant',
      content: completed ? [outputText(plan.text)] : [],
    },
  ];
}

function outputText(text: string): unknown {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function responseEvents(plan: AnswerPlan): string[] {
  const frames: string[] = [];
  const emit = (type: string, fields: JsonRecord) =>
    frames.push(sseEvent(type, { type, sequence_number: frames.length, ...fields }));
  emit('response.created', { response: response(plan, 'in_progress') });
  emit('response.in_progress', { response: response(plan, 'in_progress') });
  const added = outputItems(plan, 'in_progress');
  const done = outputItems(plan, 'completed');
  // A reasoning item comes whole in its output_item.done, where the SDKs read it; its summary's events are left out.
  const reasoningItems = plan.reasoning === undefined ? 0 : 1;
  for (const [outputIndex, item] of added.entries()) {
    const position = { output_index: outputIndex };
    emit('response.output_item.added', { ...position, item });
    const answerIndex = outputIndex - reasoningItems;
    const call = plan.toolCalls[answerIndex];
    if (call) {
      const fields = { item_id: functionCallItemId(plan, answerIndex), ...position };
      for (const fragment of splitIntoPieces(call.arguments, 3)) {
        emit('response.function_call_arguments.delta', { ...fields, delta: fragment });
      }
      emit('response.function_call_arguments.done', { ...fields, arguments: call.arguments });
    } else if (answerIndex >= 0) {
      const part = { item_id: messageItemId(plan), ...position, content_index: 0 };
      emit('response.content_part.added', { ...part, part: outputText('') });
      for (const piece of plan.textChunks) emit('response.output_text.delta', { ...part, delta: piece, logprobs: [] });
      emit('response.output_text.done', { ...part, text: plan.text, logprobs: [] });
      emit('response.content_part.done', { ...part, part: outputText(plan.text) });
    }
    emit('response.output_item.done', { ...position, item: done[outputIndex] });
  }
  emit('response.completed', { response: response(plan, 'completed') });
  return frames;
}

function responsesUsage(usage: FakeUsage): unknown {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function reasoningItemId(plan: AnswerPlan): string {
  return `rs_fake_${plan.requestIndex}`;
}

function messageItemId(plan: AnswerPlan): string {
  return `msg_fake_${plan.requestIndex}`;
}

function functionCallItemId(plan: AnswerPlan, position: number): string {
  return `fc_fake_${plan.requestIndex}${nthCallSuffix(position)}`;
}
