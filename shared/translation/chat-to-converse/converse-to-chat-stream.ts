import type { EventTransformer } from '../../streams/event-transformer.ts';
import { messagesErrorTypeOf } from '../../wires/bedrock/bedrock-errors.ts';
import type { ConverseStreamEvent } from '../../wires/bedrock-converse/bedrock-converse-stream-event.ts';
import { createConverseStreamUsageReader } from '../../wires/bedrock-converse/bedrock-converse-usage.ts';
import type { ChatFinishReason } from '../../wires/openai-chat/openai-chat-finish-reason.ts';
import type {
  ChatChunkDeltaOut,
  ChatCompletionChunk,
  ChatStreamEvent,
} from '../../wires/openai-chat/openai-chat-stream-event.ts';
import type { ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { chatUsageOfReport } from '../../wires/openai-chat/openai-chat-usage.ts';
import { callIdCarryingReasoning } from '../chat-to-messages/reasoning-in-call-id.ts';
import { incompleteUpstreamStream, upstreamStreamFailedMessage } from '../stream-failures.ts';
import { finishReasonOfConverse } from './map-converse-stop-reason.ts';

export interface ConverseToChatStreamOptions {
  /** The chat completion id every chunk carries (see `chatCompletionId`). */
  id: string;
  /** The model id as the client asked for it. */
  model: string;
  /** Unix seconds. */
  created: number;
  /** `stream_options.include_usage`: a usage-only chunk (`choices: []`) before `[DONE]`. */
  includeUsage: boolean;
  /** Each signed or redacted reasoning block in a chunk of its own as it closes, for a hop that reads the stream. */
  thinkingBlocksAsTheyClose?: boolean;
}

/** What one upstream content block is, by its index; a block's kind is known from its start or first delta. */
type BlockState =
  | { kind: 'text' }
  | { kind: 'reasoning'; text: string; signature: string; redacted: string }
  | { kind: 'toolUse'; toolCallIndex: number; sentArguments: boolean };

/**
 * Converse stream events → Chat Completions stream events. The stream opens with the assistant role; text and
 * reasoning deltas become `content` and `reasoning_content`; a block started with `toolUse` becomes a tool call
 * numbered in order of appearance, its id and name first, then its input fragments by `index`; `messageStop`'s
 * reason is the finish reason, whose chunk carries the signed or redacted reasoning as `thinking_blocks`. The usage
 * comes last, in `metadata`: with `include_usage` a usage-only chunk, then `[DONE]`, once the answer has both
 * ended and reported it (or the stream has ended). An exception event ends the stream with chat's error payload.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html
 */
export function createConverseToChatTransformer(
  options: ConverseToChatStreamOptions,
): EventTransformer<ConverseStreamEvent, ChatStreamEvent> {
  const usageReader = createConverseStreamUsageReader();
  const blocks = new Map<number, BlockState>();
  let toolCallCount = 0;
  const thinkingBlocks: ChatThinkingBlockOut[] = [];
  let started = false;
  let finishReason: ChatFinishReason | undefined;
  let sawMetadata = false;
  let closed = false;
  let out: TransformStreamDefaultController<ChatStreamEvent>;

  const chunk = (delta: ChatChunkDeltaOut, reason: ChatFinishReason | null = null) => {
    const written: ChatCompletionChunk = {
      id: options.id,
      object: 'chat.completion.chunk',
      created: options.created,
      model: options.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: reason }],
      ...(options.includeUsage ? { usage: null } : {}),
    };
    out.enqueue({ type: 'chunk', chunk: written });
  };

  /** Every stream opens with the assistant role, also when `messageStart` is missing. */
  const opening = () => {
    if (started) return;
    started = true;
    chunk({ role: 'assistant', content: '' });
  };

  const emit = (delta: ChatChunkDeltaOut, reason: ChatFinishReason | null = null) => {
    opening();
    chunk(delta, reason);
  };

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
        created: options.created,
        model: options.model,
        choices: [],
        usage,
      };
      out.enqueue({ type: 'chunk', chunk: usageChunk });
    }
    out.enqueue({ type: 'done' });
  };

  const finish = (reason: ChatFinishReason) => {
    if (finishReason !== undefined) return;
    finishReason = reason;
    const untold = options.thinkingBlocksAsTheyClose ? [] : thinkingBlocks;
    emit(untold.length > 0 ? { thinking_blocks: untold } : {}, reason);
  };

  const fail = (code: string, message: string, type = code) => {
    closed = true;
    out.enqueue({ type: 'error', error: { message, type, code } });
  };

  const reasoningBlock = (index: number) => {
    const known = blocks.get(index);
    if (known?.kind === 'reasoning') return known;
    const block: BlockState = { kind: 'reasoning', text: '', signature: '', redacted: '' };
    blocks.set(index, block);
    return block;
  };

  const onBlockStart = (event: Extract<ConverseStreamEvent, { type: 'contentBlockStart' }>) => {
    if (!event.toolUse) return;
    const toolCallIndex = toolCallCount++;
    blocks.set(event.index, { kind: 'toolUse', toolCallIndex, sentArguments: false });
    emit({
      tool_calls: [
        {
          index: toolCallIndex,
          // The first call carries the reasoning closed before it, signatures included (reasoning-in-call-id.ts).
          id: callIdCarryingReasoning(
            event.toolUse.toolUseId || `call_${toolCallIndex}`,
            toolCallIndex === 0 ? thinkingBlocks : [],
          ),
          type: 'function',
          function: { name: event.toolUse.name, arguments: '' },
        },
      ],
    });
  };

  const onBlockDelta = (event: Extract<ConverseStreamEvent, { type: 'contentBlockDelta' }>) => {
    const { delta, index } = event;
    const block = blocks.get(index);
    if (typeof delta.text === 'string') {
      if (block === undefined) blocks.set(index, { kind: 'text' });
      if (delta.text) emit({ content: delta.text });
    } else if (delta.toolUse && block?.kind === 'toolUse') {
      if (delta.toolUse.input) {
        block.sentArguments = true;
        emit({ tool_calls: [{ index: block.toolCallIndex, function: { arguments: delta.toolUse.input } }] });
      }
    } else if (delta.reasoningContent) {
      const reasoning = reasoningBlock(index);
      const { text, signature, redactedContent } = delta.reasoningContent;
      if (text) {
        reasoning.text += text;
        emit({ reasoning_content: text });
      }
      if (signature) reasoning.signature += signature;
      if (redactedContent) reasoning.redacted += redactedContent;
    }
    // A delta of another kind (citations, say) carries nothing a chat client reads.
  };

  /** A call whose input never streamed still gets JSON arguments, so a client can always parse them. */
  const onBlockStop = (index: number) => {
    const block = blocks.get(index);
    if (block?.kind === 'reasoning') {
      if (block.signature) addThinkingBlock({ type: 'thinking', thinking: block.text, signature: block.signature });
      if (block.redacted) addThinkingBlock({ type: 'redacted_thinking', data: block.redacted });
    }
    if (block?.kind !== 'toolUse' || block.sentArguments) return;
    block.sentArguments = true;
    emit({ tool_calls: [{ index: block.toolCallIndex, function: { arguments: '{}' } }] });
  };

  const translate = (event: ConverseStreamEvent) => {
    switch (event.type) {
      case 'messageStart':
        return opening();
      case 'contentBlockStart':
        return onBlockStart(event);
      case 'contentBlockDelta':
        return onBlockDelta(event);
      case 'contentBlockStop':
        return onBlockStop(event.index);
      case 'messageStop':
        finish(finishReasonOfConverse(event.stopReason));
        if (sawMetadata) complete();
        return;
      case 'metadata':
        // Usage follows the end of the answer; the stream is whole once both have come, in either order.
        sawMetadata = true;
        if (finishReason !== undefined) complete();
        return;
      case 'exception':
        // The kind as every client's SDK knows it (`rate_limit_error`…), Bedrock's exception name as the code.
        return fail(
          event.name,
          event.message ?? upstreamStreamFailedMessage,
          messagesErrorTypeOf(event.name, undefined),
        );
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
      // A stream that ended after `messageStop` without `metadata` has a whole answer, without usage.
      if (finishReason !== undefined) complete();
      else fail(incompleteUpstreamStream.code, incompleteUpstreamStream.message);
    },
  };
}
