import type { EventTransformer } from '../../streams/event-transformer.ts';
import type { MessagesStreamEvent } from '../../wires/anthropic-messages/anthropic-messages-stream-event.ts';
import { createMessagesStreamUsageReader } from '../../wires/anthropic-messages/anthropic-messages-usage.ts';
import type { ChatFinishReason } from '../../wires/openai-chat/openai-chat-finish-reason.ts';
import type {
  ChatChunkDeltaOut,
  ChatCompletionChunk,
  ChatStreamEvent,
} from '../../wires/openai-chat/openai-chat-stream-event.ts';
import type { ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { chatUsageOfReport } from '../../wires/openai-chat/openai-chat-usage.ts';
import { isRecord } from '../../wires/parse-json.ts';
import { incompleteUpstreamStream, upstreamStreamFailedMessage } from '../stream-failures.ts';
import { finishReasonOf } from './map-messages-stop-reason.ts';
import { callIdCarryingReasoning } from './reasoning-in-call-id.ts';

export interface MessagesToChatStreamOptions {
  /** The chat completion id every chunk carries (see `chatCompletionId`). */
  id: string;
  /** The model id as the client asked for it. */
  model: string;
  /** `stream_options.include_usage`: a usage-only chunk (`choices: []`) before `[DONE]`. */
  includeUsage: boolean;
  /** Unix seconds; now when not given. */
  created?: number;
  /**
   * Each signed or redacted reasoning block in a chunk of its own as soon as it closes, rather than the whole list
   * once with the finish reason: for a hop that reads the stream (Responses → chat, whose reasoning item closes
   * when the text begins and must carry its blocks then), not for a client's accumulator.
   */
  thinkingBlocksAsTheyClose?: boolean;
}

/** What one upstream content block is, by its index in the message. */
type BlockState =
  | { kind: 'text' }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'tool_use'; toolCallIndex: number; sentArguments: boolean; startInput: unknown }
  | { kind: 'ignored' };

/**
 * Messages-format stream events → Chat Completions stream events: every stream opens with the assistant role,
 * text and thinking become `content` and `reasoning_content` deltas, each `tool_use` block a tool call numbered
 * in order of appearance, and the stop reason the finish reason, whose chunk also carries every signed or redacted
 * reasoning block as `thinking_blocks` (openai-chat-thinking-blocks.ts; or each block as it closes, see
 * `thinkingBlocksAsTheyClose`); with `include_usage`, a usage-only chunk
 * comes before `[DONE]`. An upstream `error` event ends the stream with chat's error payload.
 */
export function createMessagesToChatTransformer(
  options: MessagesToChatStreamOptions,
): EventTransformer<MessagesStreamEvent, ChatStreamEvent> {
  const created = options.created ?? Math.floor(Date.now() / 1000);
  // The answer's usage, for the usage chunk; it is this stream's own, read from the events it translates.
  const usageReader = createMessagesStreamUsageReader();
  const blocks = new Map<number, BlockState>();
  // Chat numbers tool calls 0, 1, 2... in order of appearance; upstream block indexes also count text and thinking.
  let toolCallCount = 0;
  // Signed and redacted reasoning, in order, for `thinking_blocks` on the chunk that ends the answer.
  const thinkingBlocks: ChatThinkingBlockOut[] = [];
  let started = false;
  let finishReason: ChatFinishReason | undefined;
  let closed = false;
  let out: TransformStreamDefaultController<ChatStreamEvent>;

  const chunk = (delta: ChatChunkDeltaOut, reason: ChatFinishReason | null = null) => {
    const written: ChatCompletionChunk = {
      id: options.id,
      object: 'chat.completion.chunk',
      created,
      model: options.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: reason }],
      ...(options.includeUsage ? { usage: null } : {}),
    };
    out.enqueue({ type: 'chunk', chunk: written });
  };

  /** Every stream opens with the assistant role, also when an engine skips `message_start`. */
  const opening = () => {
    if (started) return;
    started = true;
    chunk({ role: 'assistant', content: '' });
  };

  const emit = (delta: ChatChunkDeltaOut, reason: ChatFinishReason | null = null) => {
    opening();
    chunk(delta, reason);
  };

  const finish = (reason: ChatFinishReason) => {
    if (finishReason !== undefined) return;
    finishReason = reason;
    const untold = options.thinkingBlocksAsTheyClose ? [] : thinkingBlocks;
    emit(untold.length > 0 ? { thinking_blocks: untold } : {}, reason);
  };

  /** A reasoning block that is whole: kept for the finish, or told at once to a hop that reads as it comes. */
  const addThinkingBlock = (block: ChatThinkingBlockOut) => {
    thinkingBlocks.push(block);
    if (options.thinkingBlocksAsTheyClose) emit({ thinking_blocks: [block] });
  };

  const complete = () => {
    closed = true;
    const usage = chatUsageOfReport(usageReader.result());
    if (options.includeUsage && usage) {
      const usageChunk: ChatCompletionChunk = {
        id: options.id,
        object: 'chat.completion.chunk',
        created,
        model: options.model,
        choices: [],
        usage,
      };
      out.enqueue({ type: 'chunk', chunk: usageChunk });
    }
    out.enqueue({ type: 'done' });
  };

  const fail = (type: string, message: string) => {
    closed = true;
    out.enqueue({ type: 'error', error: { message, type, code: type } });
  };

  const onBlockStart = (event: Extract<MessagesStreamEvent, { type: 'content_block_start' }>) => {
    const block = event.content_block;
    switch (block.type) {
      case 'text':
        blocks.set(event.index, { kind: 'text' });
        if (block.text) emit({ content: block.text });
        return;
      case 'thinking':
        blocks.set(event.index, { kind: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' });
        if (block.thinking) emit({ reasoning_content: block.thinking });
        return;
      case 'redacted_thinking':
        // Encrypted reasoning: nothing to show, but it must go back upstream as it came.
        if (block.data) addThinkingBlock({ type: 'redacted_thinking', data: block.data });
        blocks.set(event.index, { kind: 'ignored' });
        return;
      case 'tool_use': {
        const toolCallIndex = toolCallCount++;
        blocks.set(event.index, { kind: 'tool_use', toolCallIndex, sentArguments: false, startInput: block.input });
        // The first fragment of a call names it; the SDKs assemble later fragments by `index` alone.
        emit({
          tool_calls: [
            {
              index: toolCallIndex,
              // The first call carries the reasoning closed before it, signatures included (reasoning-in-call-id.ts).
              id: callIdCarryingReasoning(
                block.id ?? `call_${toolCallIndex}`,
                toolCallIndex === 0 ? thinkingBlocks : [],
              ),
              type: 'function',
              function: { name: block.name ?? '', arguments: '' },
            },
          ],
        });
        return;
      }
      default:
        // Server tools and block types added later have no chat counterpart.
        blocks.set(event.index, { kind: 'ignored' });
        return;
    }
  };

  const onBlockDelta = (event: Extract<MessagesStreamEvent, { type: 'content_block_delta' }>) => {
    const block = blocks.get(event.index);
    const { delta } = event;
    if (block?.kind === 'text' && delta.type === 'text_delta' && delta.text) emit({ content: delta.text });
    else if (block?.kind === 'thinking' && delta.type === 'thinking_delta' && delta.thinking) {
      block.thinking += delta.thinking;
      emit({ reasoning_content: delta.thinking });
    } else if (block?.kind === 'thinking' && delta.type === 'signature_delta' && delta.signature) {
      block.signature = delta.signature;
    } else if (block?.kind === 'tool_use' && delta.type === 'input_json_delta' && delta.partial_json) {
      block.sentArguments = true;
      emit({ tool_calls: [{ index: block.toolCallIndex, function: { arguments: delta.partial_json } }] });
    }
    // citations_delta and deltas of ignored blocks carry nothing a chat client reads.
  };

  /**
   * A call whose input never streamed (no arguments, or an engine that sends the whole input in the start
   * event) still gets JSON arguments, so a client can always parse them.
   */
  const onBlockStop = (index: number) => {
    const block = blocks.get(index);
    if (block?.kind === 'thinking' && block.signature) {
      addThinkingBlock({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    }
    if (block?.kind !== 'tool_use' || block.sentArguments) return;
    block.sentArguments = true;
    const input = isRecord(block.startInput) ? block.startInput : {};
    emit({ tool_calls: [{ index: block.toolCallIndex, function: { arguments: JSON.stringify(input) } }] });
  };

  const translate = (event: MessagesStreamEvent) => {
    switch (event.type) {
      case 'message_start':
        return opening();
      case 'content_block_start':
        return onBlockStart(event);
      case 'content_block_delta':
        return onBlockDelta(event);
      case 'content_block_stop':
        return onBlockStop(event.index);
      case 'message_delta':
        if (event.delta?.stop_reason) finish(finishReasonOf(event.delta.stop_reason));
        return;
      case 'message_stop':
        finish('stop');
        return complete();
      case 'ping':
        return;
      case 'error':
        return fail(event.error?.type ?? 'api_error', event.error?.message ?? upstreamStreamFailedMessage);
      default: {
        const unknownEvent: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(unknownEvent)}`);
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
      // Some engines stop after `message_delta` without `message_stop`; the answer itself is whole by then.
      if (finishReason !== undefined) complete();
      else fail(incompleteUpstreamStream.code, incompleteUpstreamStream.message);
    },
  };
}
