import type { FakeUsage } from './behaviour.ts';
import { arrayAt, isRecord, type JsonRecord, recordAt, stringAt, textOfContent } from './json-fields.ts';
import { countAt } from './most-allowed-usage.ts';
import { redactedThinkingData, thinkingEnabled, thinkingRefusal, thinkingSignature } from './signed-thinking.ts';
import {
  type AnswerPlan,
  type FakeError,
  type FakeWire,
  type LastTurn,
  nthCallSuffix,
  splitIntoPieces,
  sseEvent,
  type WireReply,
} from './wire-reply.ts';

/** Anthropic messages: https://docs.anthropic.com/en/api/messages and .../messages-streaming */
export const anthropicMessagesWire: FakeWire = {
  name: 'anthropic-messages',

  lastTurn(request: JsonRecord): LastTurn {
    const lastUser = arrayAt(request, 'messages').findLast((message) => stringAt(message, 'role') === 'user');
    const content = isRecord(lastUser) ? lastUser['content'] : undefined;
    const toolResults = Array.isArray(content)
      ? content.filter((block) => stringAt(block, 'type') === 'tool_result')
      : [];
    return toolResults.length > 0
      ? { text: textOfContent(toolResults), isToolResult: true }
      : { text: textOfContent(content), isToolResult: false };
  },

  defaultReasoning: (request, turn) => (thinkingEnabled(request) ? `considering: ${turn.text}` : undefined),

  refusal(request: JsonRecord) {
    const message = thinkingRefusal(request);
    return message === undefined ? undefined : { message };
  },

  // Thinking is carved out of max_tokens, never added to it.
  outputLimit: (request: JsonRecord) => ({ perAnswer: countAt(request, 'max_tokens'), answers: 1 }),

  offeredToolName(request: JsonRecord): string | undefined {
    const toolChoice = recordAt(request, 'tool_choice');
    if (stringAt(toolChoice, 'type') === 'none') return undefined;
    return stringAt(toolChoice, 'name') ?? stringAt(arrayAt(request, 'tools')[0], 'name');
  },

  answer(plan: AnswerPlan): WireReply {
    return plan.streamMode === 'none'
      ? { kind: 'json', status: 200, body: message(plan) }
      : { kind: 'stream', contentType: 'text/event-stream; charset=utf-8', frames: messageEvents(plan) };
  },

  errorBody(error: FakeError): unknown {
    return { type: 'error', error: { type: errorType(error.status), message: error.message }, request_id: 'req_fake' };
  },

  streamErrorFrame(error: FakeError): string {
    return sseEvent('error', { type: 'error', error: { type: errorType(error.status), message: error.message } });
  },

  countTokensBody: (usage) => ({ input_tokens: usage?.inputTokens ?? 0 }),

  // https://docs.anthropic.com/en/api/models-list
  modelListBody: (ids) => ({
    data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-06-15T00:00:00Z' })),
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids.at(-1) ?? null,
  }),
};

/** The reasoning blocks that open an answer, each signed or redacted by the fake. */
function reasoningBlocks(plan: AnswerPlan): JsonRecord[] {
  const blocks: JsonRecord[] = [];
  if (plan.reasoning !== undefined) {
    blocks.push({ type: 'thinking', thinking: plan.reasoning, signature: thinkingSignature(plan.reasoning) });
  }
  if (plan.redactedThinking) blocks.push({ type: 'redacted_thinking', data: redactedThinkingData(messageId(plan)) });
  return blocks;
}

function message(plan: AnswerPlan): unknown {
  const answerBlocks =
    plan.toolCalls.length > 0
      ? plan.toolCalls.map((call, position) => ({
          type: 'tool_use',
          id: toolUseId(plan, position),
          name: call.name,
          input: parseToolInput(call.arguments),
        }))
      : [{ type: 'text', text: plan.text }];
  const content = [...reasoningBlocks(plan), ...answerBlocks];
  return {
    id: messageId(plan),
    type: 'message',
    role: 'assistant',
    model: plan.model,
    content,
    stop_reason: plan.toolCalls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    ...(plan.usage && { usage: messagesUsage(plan.usage, plan.usage.outputTokens) }),
  };
}

function messageEvents(plan: AnswerPlan): string[] {
  // Usage arrives in two parts that a reader must combine: input figures in message_start, output in message_delta.
  const frames = [
    sseEvent('message_start', {
      type: 'message_start',
      message: {
        id: messageId(plan),
        type: 'message',
        role: 'assistant',
        model: plan.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        ...(plan.usage && { usage: messagesUsage(plan.usage, 1) }),
      },
    }),
  ];
  const reasoning = reasoningBlocks(plan);
  for (const [index, block] of reasoning.entries()) frames.push(...reasoningEvents(block, index));
  // One block at a time after the reasoning: the text, or each tool call in turn.
  const answerBlocks =
    plan.toolCalls.length > 0
      ? plan.toolCalls.map((call, position) => ({
          block: { type: 'tool_use', id: toolUseId(plan, position), name: call.name, input: {} },
          deltas: splitIntoPieces(call.arguments, 3).map((fragment) => ({
            type: 'input_json_delta',
            partial_json: fragment,
          })),
        }))
      : [
          {
            block: { type: 'text', text: '' },
            deltas: plan.textChunks.map((piece) => ({ type: 'text_delta', text: piece })),
          },
        ];
  for (const [position, { block, deltas }] of answerBlocks.entries()) {
    const index = reasoning.length + position;
    frames.push(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: block }));
    if (position === 0) frames.push(sseEvent('ping', { type: 'ping' }));
    for (const delta of deltas) {
      frames.push(sseEvent('content_block_delta', { type: 'content_block_delta', index, delta }));
    }
    frames.push(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
  }
  frames.push(
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: plan.toolCalls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      ...(plan.usage && { usage: { output_tokens: plan.usage.outputTokens } }),
    }),
  );
  frames.push(sseEvent('message_stop', { type: 'message_stop' }));
  return frames;
}

/** A thinking block streams its text, then its signature; redacted thinking comes whole in its start event. */
function reasoningEvents(block: JsonRecord, index: number): string[] {
  const start = (contentBlock: JsonRecord) =>
    sseEvent('content_block_start', { type: 'content_block_start', index, content_block: contentBlock });
  const delta = (value: JsonRecord) =>
    sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: value });
  const stop = sseEvent('content_block_stop', { type: 'content_block_stop', index });
  if (block['type'] === 'redacted_thinking') return [start(block), stop];
  const thinking = String(block['thinking']);
  return [
    start({ type: 'thinking', thinking: '', signature: '' }),
    ...splitIntoPieces(thinking, 2).map((piece) => delta({ type: 'thinking_delta', thinking: piece })),
    delta({ type: 'signature_delta', signature: String(block['signature']) }),
    stop,
  ];
}

/** This wire counts cache reads apart from `input_tokens`, unlike the gateway's figures. */
function messagesUsage(usage: FakeUsage, outputTokens: number): unknown {
  return {
    input_tokens: usage.inputTokens - usage.cachedInputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cachedInputTokens,
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function parseToolInput(argumentText: string): unknown {
  const parsed: unknown = JSON.parse(argumentText);
  return isRecord(parsed) ? parsed : {};
}

function messageId(plan: AnswerPlan): string {
  return `msg_fake_${plan.requestIndex}`;
}

function toolUseId(plan: AnswerPlan, position: number): string {
  return `toolu_fake_${plan.requestIndex}${nthCallSuffix(position)}`;
}

function errorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}
