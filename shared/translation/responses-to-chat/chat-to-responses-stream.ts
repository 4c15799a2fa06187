import type { EventTransformer } from '../../streams/event-transformer.ts';
import type { ChatChunkToolCall, ChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import {
  type ChatThinkingBlockOut,
  signedThinkingBlocks,
} from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import type { ResponsesItemStatus, ResponsesUsageOut } from '../../wires/openai-responses/openai-responses-response.ts';
import type { ResponsesStreamEventOut } from '../../wires/openai-responses/openai-responses-stream-event.ts';
import { incompleteUpstreamStream, upstreamStreamFailedMessage } from '../stream-failures.ts';
import { buildResponse, defaultResponseForm, type ResponseIdentity, type ResponseState } from './build-response.ts';
import { endingOf, type ResponsesEnding } from './map-chat-finish-reason.ts';
import {
  type CallState,
  callState,
  customInputOf,
  type ItemState,
  isCustomCall,
  itemOf,
  type MessagePartState,
  type MessageState,
  messagePartOf,
  messageState,
  type ReasoningState,
  reasoningState,
} from './output-items.ts';
import { responsesUsageOf } from './responses-usage.ts';

/** An event as this transformer builds it, before it is numbered. */
type UnnumberedEvent = ResponsesStreamEventOut extends infer Event
  ? Event extends unknown
    ? Omit<Event, 'sequence_number'>
    : never
  : never;

/** An item's state with its place in the output, its `output_index`. */
interface Placed<State> {
  outputIndex: number;
  state: State;
}

/**
 * Chat Completions stream events → Responses stream events, numbered in order (`sequence_number` from 0).
 *
 * The event order is the vendor's: `response.created` and `response.in_progress` first; each output item opens
 * with `output_item.added` and closes with `output_item.done`, in output order. `reasoning_content` streams into a
 * reasoning item (as a summary part or as reasoning text, see ResponseForm) that closes when the answer proper
 * starts; text and refusals stream into one message item, each as a content part of its own; a tool call opens at
 * its first fragment and streams `function_call_arguments.delta` (a custom tool's call gives its input whole when
 * it closes: its fragments are JSON around the text). The message closes at the first call, since text comes
 * before calls; calls stay open until the finish reason, because chat may interleave the fragments of parallel
 * calls by index. The usage chunk that chat sends after the finish reason is held for `response.completed` (or
 * `response.incomplete` after a stop by length).
 */
export function createChatToResponsesTransformer(
  identity: ResponseIdentity,
): EventTransformer<ChatStreamEvent, ResponsesStreamEventOut> {
  const fixedIdentity = { ...identity, createdAt: identity.createdAt ?? Math.floor(Date.now() / 1000) };
  const form = identity.form ?? defaultResponseForm;
  const items: ItemState[] = [];
  let openReasoning: Placed<ReasoningState> | undefined;
  let openMessage: Placed<MessageState> | undefined;
  /** Call items by chat tool-call index, in the order they opened. */
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
    buildResponse(fixedIdentity, { ...state, output: items.map((item) => itemOf(item, form)), usage });

  /** Every stream opens with the response, also when the first upstream event is an error. */
  const opening = () => {
    if (started) return;
    started = true;
    const response = snapshot({ status: 'in_progress' });
    send({ type: 'response.created', response });
    send({ type: 'response.in_progress', response });
  };

  const statusOnClose = (): ResponsesItemStatus => (ending?.status === 'incomplete' ? 'incomplete' : 'completed');

  const openItem = <State extends ItemState>(make: (outputIndex: number) => State): Placed<State> => {
    const outputIndex = items.length;
    const state = make(outputIndex);
    items.push(state);
    send({ type: 'response.output_item.added', output_index: outputIndex, item: itemOf(state, form) });
    return { outputIndex, state };
  };

  const closeItem = ({ outputIndex, state }: Placed<ItemState>) => {
    state.status = statusOnClose();
    send({ type: 'response.output_item.done', output_index: outputIndex, item: itemOf(state, form) });
  };

  const reasoningPart = (text: string) => ({ type: 'summary_text' as const, text });

  const openReasoningItem = () => {
    closeMessage();
    if (!openReasoning) {
      openReasoning = openItem((outputIndex) => reasoningState(identity.id, outputIndex));
      const base = { item_id: openReasoning.state.id, output_index: openReasoning.outputIndex };
      if (form.reasoningAs === 'summary') {
        send({ type: 'response.reasoning_summary_part.added', ...base, summary_index: 0, part: reasoningPart('') });
      } else {
        send({
          type: 'response.content_part.added',
          ...base,
          content_index: 0,
          part: { type: 'reasoning_text', text: '' },
        });
      }
    }
    return openReasoning;
  };

  const appendReasoning = (text: string) => {
    const { state, outputIndex } = openReasoningItem();
    state.text += text;
    const base = { item_id: state.id, output_index: outputIndex, delta: text };
    if (form.reasoningAs === 'summary')
      send({ type: 'response.reasoning_summary_text.delta', ...base, summary_index: 0 });
    else send({ type: 'response.reasoning_text.delta', ...base, content_index: 0 });
  };

  /**
   * Signed reasoning blocks join the open reasoning item, whose `encrypted_content` carries them when it closes. The
   * K2.7 route's hop tells each block as it closes, before the answer proper begins; a block that opens the answer
   * (redacted thinking) opens the item. Blocks told only once the answer proper has begun (a chat upstream that
   * signs, and gives its list with the finish reason) come too late for a closed item and are not carried.
   */
  const addThinkingBlocks = (blocks: ChatThinkingBlockOut[]) => {
    if (blocks.length === 0 || (!openReasoning && items.length > 0)) return;
    openReasoningItem().state.thinkingBlocks.push(...blocks);
  };

  const closeReasoning = () => {
    if (!openReasoning) return;
    const placed = openReasoning;
    openReasoning = undefined;
    const { state, outputIndex } = placed;
    const base = { item_id: state.id, output_index: outputIndex };
    if (form.reasoningAs === 'summary') {
      send({ type: 'response.reasoning_summary_text.done', ...base, summary_index: 0, text: state.text });
      send({
        type: 'response.reasoning_summary_part.done',
        ...base,
        summary_index: 0,
        part: reasoningPart(state.text),
      });
    } else {
      send({ type: 'response.reasoning_text.done', ...base, content_index: 0, text: state.text });
      send({
        type: 'response.content_part.done',
        ...base,
        content_index: 0,
        part: { type: 'reasoning_text', text: state.text },
      });
    }
    closeItem(placed);
  };

  /** Text or a refusal, each into a content part of its own of the one message item. */
  const appendToMessage = (type: MessagePartState['type'], text: string) => {
    closeReasoning();
    openMessage ??= openItem((outputIndex) => messageState(identity.id, outputIndex));
    const { state, outputIndex } = openMessage;
    let contentIndex = state.parts.findIndex((part) => part.type === type);
    if (contentIndex === -1) {
      contentIndex = state.parts.push({ type, text: '' }) - 1;
      const part = messagePartOf({ type, text: '' });
      send({
        type: 'response.content_part.added',
        item_id: state.id,
        output_index: outputIndex,
        content_index: contentIndex,
        part,
      });
    }
    const part = state.parts[contentIndex] as MessagePartState;
    part.text += text;
    const base = { item_id: state.id, output_index: outputIndex, content_index: contentIndex, delta: text };
    if (type === 'output_text') send({ type: 'response.output_text.delta', ...base, logprobs: [] });
    else send({ type: 'response.refusal.delta', ...base });
  };

  const closeMessage = () => {
    if (!openMessage) return;
    const placed = openMessage;
    openMessage = undefined;
    const { state, outputIndex } = placed;
    state.parts.forEach((part, contentIndex) => {
      const base = { item_id: state.id, output_index: outputIndex, content_index: contentIndex };
      if (part.type === 'output_text')
        send({ type: 'response.output_text.done', ...base, text: part.text, logprobs: [] });
      else send({ type: 'response.refusal.done', ...base, refusal: part.text });
      send({ type: 'response.content_part.done', ...base, part: messagePartOf(part) });
    });
    closeItem(placed);
  };

  const onToolCallDelta = (call: ChatChunkToolCall, position: number) => {
    const index = call.index ?? position;
    let placed = calls.get(index);
    if (!placed) {
      closeReasoning();
      closeMessage();
      placed = openItem((outputIndex) =>
        callState(
          identity.id,
          outputIndex,
          // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
          { callId: call.id ?? `call_${index}`, name: call.function?.name ?? '' },
          form,
        ),
      );
      calls.set(index, placed);
    }
    const { state, outputIndex } = placed;
    // The name comes whole in one fragment; engines that repeat it on later fragments must not double it.
    if (!state.name && call.function?.name) state.name = call.function.name;
    const fragment = call.function?.arguments;
    if (!fragment) return;
    state.arguments += fragment;
    if (isCustomCall(state, form)) return;
    send({
      type: 'response.function_call_arguments.delta',
      item_id: state.id,
      output_index: outputIndex,
      delta: fragment,
    });
  };

  const closeCalls = () => {
    for (const placed of calls.values()) {
      const { state, outputIndex } = placed;
      if (state.status !== 'in_progress') continue;
      const base = { item_id: state.id, output_index: outputIndex };
      const item = itemOf({ ...state, status: statusOnClose() }, form);
      if (item.type === 'custom_tool_call') {
        const input = customInputOf(state.arguments);
        if (input) send({ type: 'response.custom_tool_call_input.delta', ...base, delta: input });
        send({ type: 'response.custom_tool_call_input.done', ...base, input });
      } else if (item.type === 'function_call') {
        send({ type: 'response.function_call_arguments.done', ...base, name: item.name, arguments: item.arguments });
      }
      closeItem(placed);
    }
  };

  /** The first finish reason decides; closing is idempotent, so text an engine sends after it is still closed. */
  const finish = (reason: string) => {
    ending ??= endingOf(reason);
    closeReasoning();
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
   * that reads events one by one (Codex CLI reads only it) the final state, what was produced so far incomplete.
   * The upstream's own error event ends the stream so, and the gateway's failure too (`fail`).
   */
  const failWith = (code: string | null, message: string) => {
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
        return failWith(code != null ? String(code) : (type ?? null), message ?? upstreamStreamFailedMessage);
      }
      case 'chunk': {
        for (const choice of event.chunk.choices ?? []) {
          // The gateway never asks for more than one choice; an engine that sends others is not read.
          if ((choice.index ?? 0) !== 0) continue;
          const delta = choice.delta;
          if (delta?.reasoning_content) appendReasoning(delta.reasoning_content);
          addThinkingBlocks(signedThinkingBlocks(delta?.thinking_blocks));
          if (delta?.content) appendToMessage('output_text', delta.content);
          if (delta?.refusal) appendToMessage('refusal', delta.refusal);
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
      failWith(incompleteUpstreamStream.code, incompleteUpstreamStream.message);
    },
    fail(failure, controller) {
      out = controller;
      if (closed) return;
      opening();
      failWith(failure.code, failure.message);
    },
  };
}
