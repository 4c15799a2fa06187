import type { EventTransformer } from '../../streams/event-transformer.ts';
import type { ChatChunkToolCall, ChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import type {
  ResponsesItemStatus,
  ResponsesMessageOut,
  ResponsesOutputItem,
  ResponsesOutputText,
  ResponsesUsageOut,
} from '../../wires/openai-responses/openai-responses-response.ts';
import type { ResponsesStreamEventOut } from '../../wires/openai-responses/openai-responses-stream-event.ts';
import {
  buildResponse,
  callArguments,
  outputItemId,
  type ResponseIdentity,
  type ResponseState,
} from './build-response.ts';
import { endingOf, type ResponsesEnding } from './map-chat-finish-reason.ts';
import { responsesUsageOf } from './responses-usage.ts';

/** An event as this transformer builds it, before it is numbered. */
type UnnumberedEvent = ResponsesStreamEventOut extends infer Event
  ? Event extends unknown
    ? Omit<Event, 'sequence_number'>
    : never
  : never;

/** One output item as it is being built; its position in `items` is its `output_index`. */
interface MessageState {
  kind: 'message';
  id: string;
  text: string;
  status: ResponsesItemStatus;
}

interface CallState {
  kind: 'function_call';
  id: string;
  callId: string;
  name: string;
  arguments: string;
  status: ResponsesItemStatus;
}

type ItemState = MessageState | CallState;

interface Placed<State> {
  outputIndex: number;
  state: State;
}

const failedMessage = 'The upstream provider failed during the stream.';

/**
 * Chat Completions stream events → Responses stream events, numbered in order.
 *
 * The event order is the vendor's: `response.created` and `response.in_progress` first; a message item opens
 * (`output_item.added`, `content_part.added`) at the first text and streams `output_text.delta`; a function
 * call opens at its first fragment and streams `function_call_arguments.delta`. A message closes when the
 * first call opens (text comes before calls, as the vendor orders them); calls stay open until the finish
 * reason, because chat may interleave the fragments of parallel calls by index. The usage chunk that chat
 * sends after the finish reason is held for `response.completed` (or `response.incomplete` after a stop by
 * length). `reasoning_content` deltas are ignored: thinking never reaches `output_text`.
 */
export function createChatToResponsesTransformer(
  identity: ResponseIdentity,
): EventTransformer<ChatStreamEvent, ResponsesStreamEventOut> {
  const fixedIdentity = { ...identity, createdAt: identity.createdAt ?? Math.floor(Date.now() / 1000) };
  const items: ItemState[] = [];
  /** The message item receiving text, while it is open. */
  let openMessage: Placed<MessageState> | undefined;
  /** Function-call items by chat tool-call index, in the order they opened. */
  const calls = new Map<number, Placed<CallState>>();
  let sequenceNumber = 0;
  let ending: ResponsesEnding | undefined;
  let usage: ResponsesUsageOut | undefined;
  let started = false;
  let closed = false;
  let out: TransformStreamDefaultController<ResponsesStreamEventOut>;

  const send = (event: UnnumberedEvent) => {
    out.enqueue({ ...event, sequence_number: sequenceNumber++ } as ResponsesStreamEventOut);
  };

  const snapshot = (state: Omit<ResponseState, 'output' | 'usage'>) =>
    buildResponse(fixedIdentity, { ...state, output: items.map(itemOf), usage });

  /** Every stream opens with the response, also when the first upstream event is an error. */
  const opening = () => {
    if (started) return;
    started = true;
    const response = snapshot({ status: 'in_progress' });
    send({ type: 'response.created', response });
    send({ type: 'response.in_progress', response });
  };

  const itemStatusOnClose = (): ResponsesItemStatus => (ending?.status === 'incomplete' ? 'incomplete' : 'completed');

  const openMessageItem = (): Placed<MessageState> => {
    if (openMessage) return openMessage;
    const outputIndex = items.length;
    const state: MessageState = {
      kind: 'message',
      id: outputItemId('msg', identity.id, outputIndex),
      text: '',
      status: 'in_progress',
    };
    items.push(state);
    openMessage = { outputIndex, state };
    // The item opens empty: `content_part.added` adds the part, and a client's accumulator appends it.
    const item: ResponsesMessageOut = {
      type: 'message',
      id: state.id,
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    send({ type: 'response.output_item.added', output_index: outputIndex, item });
    send({
      type: 'response.content_part.added',
      item_id: state.id,
      output_index: outputIndex,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    return openMessage;
  };

  const appendText = (text: string) => {
    const placed = openMessageItem();
    placed.state.text += text;
    send({
      type: 'response.output_text.delta',
      item_id: placed.state.id,
      output_index: placed.outputIndex,
      content_index: 0,
      delta: text,
      logprobs: [],
    });
  };

  const closeMessage = () => {
    if (!openMessage) return;
    const { outputIndex, state } = openMessage;
    openMessage = undefined;
    state.status = itemStatusOnClose();
    const part: ResponsesOutputText = { type: 'output_text', text: state.text, annotations: [] };
    const base = { item_id: state.id, output_index: outputIndex, content_index: 0 };
    send({ type: 'response.output_text.done', ...base, text: state.text, logprobs: [] });
    send({ type: 'response.content_part.done', ...base, part });
    send({ type: 'response.output_item.done', output_index: outputIndex, item: itemOf(state) });
  };

  const openCallItem = (call: ChatChunkToolCall, index: number): Placed<CallState> => {
    const known = calls.get(index);
    if (known) return known;
    closeMessage();
    const outputIndex = items.length;
    const state: CallState = {
      kind: 'function_call',
      id: outputItemId('fc', identity.id, outputIndex),
      // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
      callId: call.id ?? `call_${index}`,
      name: call.function?.name ?? '',
      arguments: '',
      status: 'in_progress',
    };
    items.push(state);
    const placed = { outputIndex, state };
    calls.set(index, placed);
    send({ type: 'response.output_item.added', output_index: outputIndex, item: itemOf(state) });
    return placed;
  };

  const onToolCallDelta = (call: ChatChunkToolCall, position: number) => {
    const { state, outputIndex } = openCallItem(call, call.index ?? position);
    // The name comes whole in one fragment; engines that repeat it on later fragments must not double it.
    if (!state.name && call.function?.name) state.name = call.function.name;
    const fragment = call.function?.arguments;
    if (!fragment) return;
    state.arguments += fragment;
    send({
      type: 'response.function_call_arguments.delta',
      item_id: state.id,
      output_index: outputIndex,
      delta: fragment,
    });
  };

  const closeCalls = () => {
    for (const { outputIndex, state } of calls.values()) {
      if (state.status !== 'in_progress') continue;
      state.arguments = callArguments(state.arguments);
      state.status = itemStatusOnClose();
      send({
        type: 'response.function_call_arguments.done',
        item_id: state.id,
        output_index: outputIndex,
        name: state.name,
        arguments: state.arguments,
      });
      send({ type: 'response.output_item.done', output_index: outputIndex, item: itemOf(state) });
    }
  };

  /** The first finish reason decides; closing is idempotent, so text an engine sends after it is still closed. */
  const finish = (reason: string) => {
    ending ??= endingOf(reason);
    closeMessage();
    closeCalls();
  };

  const complete = () => {
    // `[DONE]` without a finish reason still means the upstream finished its answer.
    finish('stop');
    closed = true;
    const final = ending ?? { status: 'completed' };
    if (final.status === 'incomplete') {
      send({
        type: 'response.incomplete',
        response: snapshot({ status: 'incomplete', incompleteReason: final.reason }),
      });
    } else {
      send({ type: 'response.completed', response: snapshot({ status: 'completed' }) });
    }
  };

  /**
   * The flat `error` event is what makes the SDKs' stream helpers reject; `response.failed` then gives a client
   * that reads events one by one the final state, with what was produced so far marked incomplete.
   */
  const fail = (code: string | null, message: string) => {
    closed = true;
    for (const state of items) if (state.status === 'in_progress') state.status = 'incomplete';
    send({ type: 'error', code, message, param: null });
    send({ type: 'response.failed', response: snapshot({ status: 'failed', errorMessage: message }) });
  };

  const translate = (event: ChatStreamEvent) => {
    switch (event.type) {
      case 'done':
        return complete();
      case 'error': {
        const { code, type, message } = event.error;
        return fail(code != null ? String(code) : (type ?? null), message ?? failedMessage);
      }
      case 'chunk': {
        for (const choice of event.chunk.choices ?? []) {
          // The gateway never asks for more than one choice; an engine that sends others is not read.
          if ((choice.index ?? 0) !== 0) continue;
          const delta = choice.delta;
          // A refusal is what the assistant said; it is streamed as text rather than lost.
          const text = (delta?.content ?? '') + (delta?.refusal ?? '');
          if (text) appendText(text);
          for (const [position, call] of (delta?.tool_calls ?? []).entries()) onToolCallDelta(call, position);
          if (choice.finish_reason) finish(choice.finish_reason);
        }
        if (event.chunk.usage) usage = responsesUsageOf(event.chunk.usage) ?? usage;
        return;
      }
      default: {
        const unknownEvent: never = event;
        throw new Error(`unknown chat stream event ${JSON.stringify(unknownEvent)}`);
      }
    }
  };

  return {
    transform(event, controller) {
      out = controller;
      if (closed) return;
      opening();
      translate(event);
    },
    flush(controller) {
      out = controller;
      if (closed) return;
      // Some engines stop after the finish reason and usage without `[DONE]`; the answer itself is whole by then.
      if (ending !== undefined) return complete();
      opening();
      fail('upstream_stream_incomplete', 'The upstream stream ended before the answer was complete.');
    },
  };
}

function itemOf(state: ItemState): ResponsesOutputItem {
  switch (state.kind) {
    case 'message':
      return {
        type: 'message',
        id: state.id,
        role: 'assistant',
        status: state.status,
        content: [{ type: 'output_text', text: state.text, annotations: [] }],
      };
    case 'function_call':
      return {
        type: 'function_call',
        id: state.id,
        call_id: state.callId,
        name: state.name,
        arguments: state.arguments,
        status: state.status,
      };
    default: {
      const unknownState: never = state;
      throw new Error(`unknown output item ${JSON.stringify(unknownState)}`);
    }
  }
}
