import { createAnthropicMessagesStreamUsageReader } from '../../wires/anthropic-messages/anthropic-messages-usage.ts';
import { isRecord } from '../../wires/parse-json.ts';
import type { EventRewriter } from '../../wires/usage-report.ts';
import {
  type ChatChunkDelta,
  type ChatCompletionChunk,
  type ChatFinishReason,
  chatUsageFromReport,
} from './chat-completion.ts';
import { finishReasonOf } from './map-messages-stop-reason.ts';
import { type MessagesStreamEvent, parseMessagesStreamEvent } from './messages-response-schema.ts';

export interface MessagesToChatStreamOptions {
  /** The chat completion id every chunk carries (see `chatCompletionId`). */
  id: string;
  /** The model id as the client asked for it. */
  model: string;
  /** `stream_options.include_usage`: a usage-only chunk (`choices: []`) before `[DONE]`. */
  includeUsage: boolean;
  /** Unix seconds; now when not given. */
  created?: number;
}

/** What one upstream content block is, by its index in the message. */
type BlockState =
  | { kind: 'text' }
  | { kind: 'thinking' }
  | { kind: 'tool_use'; toolCallIndex: number; sentArguments: boolean; startInput: unknown }
  | { kind: 'ignored' };

/** Turns parsed messages-format stream events into Chat Completions SSE text. */
export function createMessagesToChatStreamTransform(options: MessagesToChatStreamOptions): EventRewriter {
  const created = options.created ?? Math.floor(Date.now() / 1000);
  const usageReader = createAnthropicMessagesStreamUsageReader();
  const blocks = new Map<number, BlockState>();
  // Chat numbers tool calls 0, 1, 2... in order of appearance; upstream block indexes also count text and thinking.
  let toolCallCount = 0;
  let started = false;
  let finishReason: ChatFinishReason | undefined;
  let closed = false;

  const chunk = (delta: ChatChunkDelta, reason: ChatFinishReason | null = null): string => {
    const body: ChatCompletionChunk = {
      id: options.id,
      object: 'chat.completion.chunk',
      created,
      model: options.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: reason }],
      ...(options.includeUsage ? { usage: null } : {}),
    };
    return sseData(body);
  };

  /** Every stream opens with the assistant role, also when an engine skips `message_start`. */
  const opening = (): string => {
    if (started) return '';
    started = true;
    return chunk({ role: 'assistant', content: '' });
  };

  const emit = (delta: ChatChunkDelta, reason: ChatFinishReason | null = null): string =>
    opening() + chunk(delta, reason);

  const finish = (reason: ChatFinishReason): string => {
    if (finishReason !== undefined) return '';
    finishReason = reason;
    return emit({}, reason);
  };

  const complete = (): string => {
    closed = true;
    const usage = chatUsageFromReport(usageReader.result());
    const usageChunk: ChatCompletionChunk | undefined =
      options.includeUsage && usage
        ? { id: options.id, object: 'chat.completion.chunk', created, model: options.model, choices: [], usage }
        : undefined;
    return (usageChunk ? sseData(usageChunk) : '') + 'data: [DONE]\n\n';
  };

  const fail = (type: string, message: string): string => {
    closed = true;
    return sseData({ error: { message, type, code: type } });
  };

  const onBlockStart = (event: Extract<MessagesStreamEvent, { type: 'content_block_start' }>): string => {
    const block = event.content_block;
    switch (block.type) {
      case 'text':
        blocks.set(event.index, { kind: 'text' });
        return block.text ? emit({ content: block.text }) : '';
      case 'thinking':
        blocks.set(event.index, { kind: 'thinking' });
        return block.thinking ? emit({ reasoning_content: block.thinking }) : '';
      case 'tool_use': {
        const toolCallIndex = toolCallCount++;
        blocks.set(event.index, { kind: 'tool_use', toolCallIndex, sentArguments: false, startInput: block.input });
        // The first fragment of a call names it; the SDKs assemble later fragments by `index` alone.
        return emit({
          tool_calls: [
            {
              index: toolCallIndex,
              id: block.id ?? `call_${toolCallIndex}`,
              type: 'function',
              function: { name: block.name ?? '', arguments: '' },
            },
          ],
        });
      }
      default:
        // Redacted thinking, server tools and block types added later have no chat counterpart.
        blocks.set(event.index, { kind: 'ignored' });
        return '';
    }
  };

  const onBlockDelta = (event: Extract<MessagesStreamEvent, { type: 'content_block_delta' }>): string => {
    const block = blocks.get(event.index);
    const { delta } = event;
    if (block?.kind === 'text' && delta.type === 'text_delta' && delta.text) return emit({ content: delta.text });
    if (block?.kind === 'thinking' && delta.type === 'thinking_delta' && delta.thinking) {
      return emit({ reasoning_content: delta.thinking });
    }
    if (block?.kind === 'tool_use' && delta.type === 'input_json_delta' && delta.partial_json) {
      block.sentArguments = true;
      return emit({ tool_calls: [{ index: block.toolCallIndex, function: { arguments: delta.partial_json } }] });
    }
    // signature_delta, citations_delta and deltas of ignored blocks carry nothing a chat client reads.
    return '';
  };

  /**
   * A call whose input never streamed (no arguments, or an engine that sends the whole input in the start
   * event) still gets JSON arguments, so a client can always parse them.
   */
  const onBlockStop = (index: number): string => {
    const block = blocks.get(index);
    if (block?.kind !== 'tool_use' || block.sentArguments) return '';
    block.sentArguments = true;
    const input = isRecord(block.startInput) ? block.startInput : {};
    return emit({ tool_calls: [{ index: block.toolCallIndex, function: { arguments: JSON.stringify(input) } }] });
  };

  const translate = (event: MessagesStreamEvent): string => {
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
        return event.delta?.stop_reason ? finish(finishReasonOf(event.delta.stop_reason)) : '';
      case 'message_stop':
        return finish('stop') + complete();
      case 'ping':
        return '';
      case 'error':
        return fail(
          event.error?.type ?? 'api_error',
          event.error?.message ?? 'The upstream provider failed during the stream.',
        );
      default: {
        const unknownEvent: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(unknownEvent)}`);
      }
    }
  };

  return {
    push(event) {
      usageReader.push(event);
      if (closed) return '';
      const parsed = parseMessagesStreamEvent(event.data);
      return parsed ? translate(parsed) : '';
    },
    end() {
      if (closed) return '';
      // Some engines stop after `message_delta` without `message_stop`; the answer itself is whole by then.
      if (finishReason !== undefined) return complete();
      return fail('upstream_stream_incomplete', 'The upstream stream ended before the answer was complete.');
    },
  };
}

function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}
