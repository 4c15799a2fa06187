import type { EventTransformer } from '../../streams/event-transformer.ts';
import type { MessagesContentBlockOut } from '../../wires/anthropic-messages/anthropic-messages-answer.ts';
import type { MessagesStopReason } from '../../wires/anthropic-messages/anthropic-messages-stop-reason.ts';
import type { MessagesStreamEventOut } from '../../wires/anthropic-messages/anthropic-messages-stream-event.ts';
import { messagesUsageOfReport } from '../../wires/anthropic-messages/anthropic-messages-usage.ts';
import type { ChatChunkToolCall, ChatStreamEvent } from '../../wires/openai-chat/openai-chat-stream-event.ts';
import { createChatStreamUsageReader } from '../../wires/openai-chat/openai-chat-usage.ts';
import type { MessagesAnswerIdentity } from './convert-from-chat-completion.ts';
import { stopReasonOf } from './map-chat-finish-reason.ts';

/** The content block being written: one at a time, as the vendor streams them. */
type OpenBlock = { kind: 'text' | 'thinking'; index: number } | { kind: 'tool_use'; index: number; call: number };

/**
 * Chat Completions stream events → messages stream events, as the vendor streams them and the SDKs assemble them:
 * `message_start`; then one content block at a time — `reasoning_content` as a thinking block, `content` (and a
 * refusal) as a text block, each tool call as a `tool_use` block whose arguments stream as `input_json_delta` —
 * each opened with `content_block_start` and closed with `content_block_stop` when the next begins; then
 * `message_delta` with the stop reason and the usage, and `message_stop`.
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
  // Chat numbers tool calls by their own `index`; each gets the block it opened.
  const toolBlocks = new Map<number, number>();
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

  const onToolCall = (call: ChatChunkToolCall, position: number) => {
    const callIndex = call.index ?? position;
    let blockIndex = toolBlocks.get(callIndex);
    if (blockIndex === undefined) {
      blockIndex = nextIndex++;
      toolBlocks.set(callIndex, blockIndex);
      openBlock(
        { kind: 'tool_use', index: blockIndex, call: callIndex },
        {
          type: 'tool_use',
          // The vendor always sends an id; a compatible engine that does not still needs one the client can answer.
          id: call.id ?? `toolu_${identity.id}_${callIndex}`,
          name: call.function?.name ?? '',
          input: {},
        },
      );
    }
    const fragment = call.function?.arguments ?? '';
    // A late fragment of a call whose block is closed still belongs to it: the SDKs assemble by index.
    if (fragment.length > 0) {
      emit({
        type: 'content_block_delta',
        index: blockIndex,
        delta: { type: 'input_json_delta', partial_json: fragment },
      });
    }
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
        return fail(
          event.error.type ?? 'api_error',
          event.error.message ?? 'The upstream provider failed during the stream.',
        );
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
      else fail('upstream_stream_incomplete', 'The upstream stream ended before the answer was complete.');
    },
  };
}

const emptyThinking: MessagesContentBlockOut = { type: 'thinking', thinking: '', signature: '' };
