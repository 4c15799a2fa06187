import type { EventRewriter } from '../../wires/usage-report.ts';
import { type ChatChunkToolCall, type ChatStreamEvent, parseChatStreamEvent } from './chat-answer-schema.ts';
import { endingOf, type ResponsesEnding } from './map-chat-finish-reason.ts';
import {
  buildResponse,
  callArguments,
  outputItemId,
  type ResponseIdentity,
  type ResponseState,
  type ResponsesItemStatus,
  type ResponsesMessageOut,
  type ResponsesOutputItem,
  type ResponsesOutputText,
  type ResponsesUsage,
} from './responses-response.ts';
import { type ResponsesStreamEvent, responsesSseFrame } from './responses-stream-event.ts';
import { responsesUsageOf } from './responses-usage.ts';

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
 * Turns parsed Chat Completions stream events into Responses SSE text.
 *
 * The event order is the vendor's: `response.created` and `response.in_progress` first; a message item opens
 * (`output_item.added`, `content_part.added`) at the first text and streams `output_text.delta`; a function
 * call opens at its first fragment and streams `function_call_arguments.delta`. A message closes when the
 * first call opens (text comes before calls, as the vendor orders them); calls stay open until the finish
 * reason, because chat may interleave the fragments of parallel calls by index. The usage chunk that chat
 * sends after the finish reason is held for `response.completed` (or `response.incomplete` after a stop by
 * length). `reasoning_content` deltas are ignored: thinking never reaches `output_text`.
 */
export function createChatToResponsesStreamTransform(identity: ResponseIdentity): EventRewriter {
  const fixedIdentity = { ...identity, createdAt: identity.createdAt ?? Math.floor(Date.now() / 1000) };
  const items: ItemState[] = [];
  /** The message item receiving text, while it is open. */
  let openMessage: Placed<MessageState> | undefined;
  /** Function-call items by chat tool-call index, in the order they opened. */
  const calls = new Map<number, Placed<CallState>>();
  let sequenceNumber = 0;
  let ending: ResponsesEnding | undefined;
  let usage: ResponsesUsage | undefined;
  let started = false;
  let closed = false;

  const send = (event: ResponsesStreamEvent): string => responsesSseFrame(event, sequenceNumber++);

  const snapshot = (state: Omit<ResponseState, 'output' | 'usage'>) =>
    buildResponse(fixedIdentity, { ...state, output: items.map(itemOf), usage });

  /** Every stream opens with the response, also when the first upstream event is an error. */
  const opening = (): string => {
    if (started) return '';
    started = true;
    const response = snapshot({ status: 'in_progress' });
    return send({ type: 'response.created', response }) + send({ type: 'response.in_progress', response });
  };

  const itemStatusOnClose = (): ResponsesItemStatus => (ending?.status === 'incomplete' ? 'incomplete' : 'completed');

  const openMessageItem = (): { placed: Placed<MessageState>; out: string } => {
    if (openMessage) return { placed: openMessage, out: '' };
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
    const out =
      send({ type: 'response.output_item.added', output_index: outputIndex, item }) +
      send({
        type: 'response.content_part.added',
        item_id: state.id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    return { placed: openMessage, out };
  };

  const appendText = (text: string): string => {
    const { placed, out } = openMessageItem();
    placed.state.text += text;
    return (
      out +
      send({
        type: 'response.output_text.delta',
        item_id: placed.state.id,
        output_index: placed.outputIndex,
        content_index: 0,
        delta: text,
        logprobs: [],
      })
    );
  };

  const closeMessage = (): string => {
    if (!openMessage) return '';
    const { outputIndex, state } = openMessage;
    openMessage = undefined;
    state.status = itemStatusOnClose();
    const part: ResponsesOutputText = { type: 'output_text', text: state.text, annotations: [] };
    const base = { item_id: state.id, output_index: outputIndex, content_index: 0 };
    return (
      send({ type: 'response.output_text.done', ...base, text: state.text, logprobs: [] }) +
      send({ type: 'response.content_part.done', ...base, part }) +
      send({ type: 'response.output_item.done', output_index: outputIndex, item: itemOf(state) })
    );
  };

  const openCallItem = (call: ChatChunkToolCall, index: number): { placed: Placed<CallState>; out: string } => {
    const known = calls.get(index);
    if (known) return { placed: known, out: '' };
    const out = closeMessage();
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
    return {
      placed,
      out: out + send({ type: 'response.output_item.added', output_index: outputIndex, item: itemOf(state) }),
    };
  };

  const onToolCallDelta = (call: ChatChunkToolCall, position: number): string => {
    const { placed, out } = openCallItem(call, call.index ?? position);
    const { state, outputIndex } = placed;
    // The name comes whole in one fragment; engines that repeat it on later fragments must not double it.
    if (!state.name && call.function?.name) state.name = call.function.name;
    const fragment = call.function?.arguments;
    if (!fragment) return out;
    state.arguments += fragment;
    return (
      out +
      send({
        type: 'response.function_call_arguments.delta',
        item_id: state.id,
        output_index: outputIndex,
        delta: fragment,
      })
    );
  };

  const closeCalls = (): string => {
    let out = '';
    for (const { outputIndex, state } of calls.values()) {
      if (state.status !== 'in_progress') continue;
      state.arguments = callArguments(state.arguments);
      state.status = itemStatusOnClose();
      out += send({
        type: 'response.function_call_arguments.done',
        item_id: state.id,
        output_index: outputIndex,
        name: state.name,
        arguments: state.arguments,
      });
      out += send({ type: 'response.output_item.done', output_index: outputIndex, item: itemOf(state) });
    }
    return out;
  };

  /** The first finish reason decides; closing is idempotent, so text an engine sends after it is still closed. */
  const finish = (reason: string): string => {
    ending ??= endingOf(reason);
    return closeMessage() + closeCalls();
  };

  const complete = (): string => {
    // `[DONE]` without a finish reason still means the upstream finished its answer.
    const out = finish('stop');
    closed = true;
    const final = ending ?? { status: 'completed' };
    if (final.status === 'incomplete') {
      return (
        out +
        send({
          type: 'response.incomplete',
          response: snapshot({ status: 'incomplete', incompleteReason: final.reason }),
        })
      );
    }
    return out + send({ type: 'response.completed', response: snapshot({ status: 'completed' }) });
  };

  /**
   * The flat `error` event is what makes the SDKs' stream helpers reject; `response.failed` then gives a client
   * that reads events one by one the final state, with what was produced so far marked incomplete.
   */
  const fail = (code: string | null, message: string): string => {
    closed = true;
    for (const state of items) if (state.status === 'in_progress') state.status = 'incomplete';
    return (
      send({ type: 'error', code, message, param: null }) +
      send({ type: 'response.failed', response: snapshot({ status: 'failed', errorMessage: message }) })
    );
  };

  const translate = (event: ChatStreamEvent): string => {
    switch (event.kind) {
      case 'done':
        return complete();
      case 'error': {
        const { code, type, message } = event.error;
        return fail(code != null ? String(code) : (type ?? null), message ?? failedMessage);
      }
      case 'chunk': {
        let out = '';
        for (const choice of event.chunk.choices ?? []) {
          // The gateway never asks for more than one choice; an engine that sends others is not read.
          if ((choice.index ?? 0) !== 0) continue;
          const delta = choice.delta;
          // A refusal is what the assistant said; it is streamed as text rather than lost.
          const text = (delta?.content ?? '') + (delta?.refusal ?? '');
          if (text) out += appendText(text);
          (delta?.tool_calls ?? []).forEach((call, position) => {
            out += onToolCallDelta(call, position);
          });
          if (choice.finish_reason) out += finish(choice.finish_reason);
        }
        if (event.chunk.usage) usage = responsesUsageOf(event.chunk.usage) ?? usage;
        return out;
      }
      default: {
        const unknownEvent: never = event;
        throw new Error(`unknown chat stream event ${JSON.stringify(unknownEvent)}`);
      }
    }
  };

  return {
    push(event) {
      if (closed) return '';
      const parsed = parseChatStreamEvent(event.data);
      return parsed ? opening() + translate(parsed) : '';
    },
    end() {
      if (closed) return '';
      // Some engines stop after the finish reason and usage without `[DONE]`; the answer itself is whole by then.
      if (ending !== undefined) return complete();
      return (
        opening() + fail('upstream_stream_incomplete', 'The upstream stream ended before the answer was complete.')
      );
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
