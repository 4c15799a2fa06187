import type { EventTransformer } from '../../streams/event-transformer.ts';
import type { MessagesContentBlockOut } from '../../wires/anthropic-messages/anthropic-messages-answer.ts';
import type { MessagesStopReason } from '../../wires/anthropic-messages/anthropic-messages-stop-reason.ts';
import type { MessagesStreamEventOut } from '../../wires/anthropic-messages/anthropic-messages-stream-event.ts';
import { messagesUsageOfReport } from '../../wires/anthropic-messages/anthropic-messages-usage.ts';
import type { ChatChunkToolCall, ChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import { createChatStreamUsageReader } from '../../wires/openai-chat/openai-chat-usage.ts';
import { incompleteUpstreamStream, upstreamStreamFailedMessage } from '../stream-failures.ts';
import type { MessagesAnswerIdentity } from './convert-from-chat-completion.ts';
import { stopReasonOf } from './map-chat-finish-reason.ts';

/** The content block being written: one at a time, as the vendor streams them. */
type OpenBlock = { kind: 'text' | 'thinking'; index: number } | { kind: 'tool_use'; index: number; call: number };

/** A tool call of the chat stream, by its `index`: its block once open, and the arguments not yet written. */
interface ToolCallState {
  call: number;
  id: string | undefined;
  name: string;
  block: number | undefined;
  held: string;
  written: string;
}

/**
 * Chat Completions stream events → messages stream events, as the vendor streams them and the SDKs assemble them:
 * `message_start`; then one content block at a time — `reasoning_content` as a thinking block, `content` (and a
 * refusal) as a text block, each tool call as a `tool_use` block whose arguments stream as `input_json_delta` —
 * each opened with `content_block_start` and closed with `content_block_stop` when the next begins; then
 * `message_delta` with the stop reason and the usage, and `message_stop`.
 *
 * Chat may interleave the fragments of parallel tool calls by `index` (some engines announce every call before
 * any arguments); the messages format streams one block at a time, and clients that assemble a call when its block
 * stops (the AI SDK, Claude Code) would lose a later fragment. So a call whose block cannot open yet is held: the
 * open call's block stays open until its arguments are a whole JSON object, and the held calls follow in order,
 * each with what it gathered meanwhile (at the latest when the answer ends).
 *
 * Chat reports usage in a chunk after the one that ends the answer, so the end is written when the stream ends
 * (`[DONE]`, or the upstream's last byte). `message_start` carries zero counts, as the vendor's carries a
 * placeholder output count: the figures come in `message_delta`, which restates every count, and which the SDKs
 * read as the answer's usage. An upstream error ends the stream with the format's `error` event.
 */
export function createChatToMessagesTransformer(
  identity: MessagesAnswerIdentity,
): EventTransformer<ChatStreamEvent, MessagesStreamEventOut> {
  const usageReader = createChatStreamUsageReader();
  let out: TransformStreamDefaultController<MessagesStreamEventOut>;
  let started = false;
  let closed = false;
  let open: OpenBlock | undefined;
  let nextIndex = 0;
  // Chat numbers tool calls by their own `index`; in the order they appeared.
  const toolCalls = new Map<number, ToolCallState>();
  let stopReason: MessagesStopReason | undefined;

  const emit = (event: MessagesStreamEventOut) => out.enqueue(event);

  const start = () => {
    if (started) return;
    started = true;
    emit({
      type: 'message_start',
      message: {
        id: identity.id,
        type: 'message',
        role: 'assistant',
        model: identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: null },
      },
    });
  };

  const closeOpen = () => {
    if (open === undefined) return;
    emit({ type: 'content_block_stop', index: open.index });
    open = undefined;
  };

  const openBlock = (block: OpenBlock, contentBlock: MessagesContentBlockOut) => {
    closeOpen();
    open = block;
    emit({ type: 'content_block_start', index: block.index, content_block: contentBlock });
  };

  const onThinking = (text: string) => {
    if (open?.kind !== 'thinking') openBlock({ kind: 'thinking', index: nextIndex++ }, emptyThinking);
    emit({
      type: 'content_block_delta',
      index: (open as OpenBlock).index,
      delta: { type: 'thinking_delta', thinking: text },
    });
  };

  const onText = (text: string) => {
    if (open?.kind !== 'text') openBlock({ kind: 'text', index: nextIndex++ }, { type: 'text', text: '' });
    emit({ type: 'content_block_delta', index: (open as OpenBlock).index, delta: { type: 'text_delta', text } });
  };

  const writeHeld = (state: ToolCallState) => {
    if (state.block === undefined || state.held.length === 0) return;
    const fragment = state.held;
    state.held = '';
    state.written += fragment;
    // A fragment of a call whose block an interleaved text closed still belongs to it: the SDKs assemble by index.
    emit({
      type: 'content_block_delta',
      index: state.block,
      delta: { type: 'input_json_delta', partial_json: fragment },
    });
  };

  const openToolBlock = (state: ToolCallState) => {
    state.block = nextIndex++;
    openBlock(
      { kind: 'tool_use', index: state.block, call: state.call },
      {
        type: 'tool_use',
        // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
        id: state.id ?? `toolu_${identity.id}_${state.call}`,
        name: state.name,
        input: {},
      },
    );
    writeHeld(state);
  };

  const firstHeldCall = () => {
    for (const state of toolCalls.values()) if (state.block === undefined) return state;
    return undefined;
  };

  /** Writes what can be written now: the open call's arguments, then held calls once the open one is whole. */
  const advanceToolCalls = (untilEnd: boolean) => {
    for (;;) {
      const current = open?.kind === 'tool_use' ? toolCalls.get(open.call) : undefined;
      if (current) writeHeld(current);
      const next = firstHeldCall();
      if (!next || (current && !untilEnd && !isWholeJsonObject(current.written))) return;
      openToolBlock(next);
    }
  };

  const onToolCall = (call: ChatChunkToolCall, position: number) => {
    const callIndex = call.index ?? position;
    let state = toolCalls.get(callIndex);
    if (!state) {
      state = { call: callIndex, id: call.id ?? undefined, name: '', block: undefined, held: '', written: '' };
      toolCalls.set(callIndex, state);
    }
    // The name comes whole in one fragment; engines that repeat it on later fragments must not double it.
    if (!state.name && call.function?.name) state.name = call.function.name;
    state.id ??= call.id ?? undefined;
    state.held += call.function?.arguments ?? '';
    advanceToolCalls(false);
  };

  const onChunk = (event: Extract<ChatStreamEvent, { type: 'chunk' }>) => {
    for (const choice of event.chunk.choices ?? []) {
      // One answer: the messages format has no `n`.
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      if (delta?.reasoning_content) onThinking(delta.reasoning_content);
      if (delta?.content) onText(delta.content);
      if (delta?.refusal) onText(delta.refusal);
      delta?.tool_calls?.forEach(onToolCall);
      if (choice.finish_reason) stopReason = stopReasonOf(choice.finish_reason);
    }
  };

  const complete = () => {
    closed = true;
    start();
    advanceToolCalls(true);
    closeOpen();
    emit({
      type: 'message_delta',
      delta: { stop_reason: stopReason ?? 'end_turn', stop_sequence: null },
      usage: messagesUsageOfReport(usageReader.result()),
    });
    emit({ type: 'message_stop' });
  };

  const fail = (type: string, message: string) => {
    closed = true;
    emit({ type: 'error', error: { type, message } });
  };

  const translate = (event: ChatStreamEvent) => {
    switch (event.type) {
      case 'chunk':
        start();
        return onChunk(event);
      case 'done':
        return complete();
      case 'error':
        return fail(event.error.type ?? 'api_error', event.error.message ?? upstreamStreamFailedMessage);
      default: {
        const unknownEvent: never = event;
        throw new Error(`unknown chat stream event ${JSON.stringify(unknownEvent)}`);
      }
    }
  };

  return {
    transform(event, controller) {
      out = controller;
      usageReader.push(event);
      if (!closed) translate(event);
    },
    flush(controller) {
      out = controller;
      if (closed) return;
      // Some engines end without `[DONE]`; once the answer said why it ended, it is whole.
      if (stopReason !== undefined) complete();
      else fail(incompleteUpstreamStream.code, incompleteUpstreamStream.message);
    },
  };
}

const emptyThinking: MessagesContentBlockOut = { type: 'thinking', thinking: '', signature: '' };

/**
 * Whether a call's arguments so far are a whole JSON object, so a held call may follow it. The cheap test first: a
 * long argument streamed in thousands of fragments is parsed only when a fragment happens to end an object.
 */
function isWholeJsonObject(text: string): boolean {
  if (!text.trimEnd().endsWith('}')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
