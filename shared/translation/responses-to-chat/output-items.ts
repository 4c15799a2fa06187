import type { ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import type {
  ResponsesItemStatus,
  ResponsesMessagePart,
  ResponsesOutputItem,
} from '../../wires/openai-responses/openai-responses-response.ts';
import { callArguments, outputItemId, type ResponseForm } from './build-response.ts';
import { customToolInputArgument } from './convert-responses-tools.ts';
import { encodeReasoningState } from './reasoning-state.ts';

/**
 * The output items of a translated answer, as the whole answer and the stream both build them: a reasoning item for
 * chat `reasoning_content` and `thinking_blocks`, a message item for the text and the refusal, a function or custom tool call item for
 * each chat tool call. Each kind has one state, and one function makes the item from it.
 */

export interface ReasoningState {
  kind: 'reasoning';
  id: string;
  text: string;
  /** The upstream's signed and redacted blocks (chat `thinking_blocks`), carried in `encrypted_content`. */
  thinkingBlocks: ChatThinkingBlockOut[];
  status: ResponsesItemStatus;
}

export interface MessagePartState {
  type: 'output_text' | 'refusal';
  text: string;
}

export interface MessageState {
  kind: 'message';
  id: string;
  /** In the order they opened; a part's position is its `content_index`. */
  parts: MessagePartState[];
  status: ResponsesItemStatus;
}

export interface CallState {
  kind: 'call';
  id: string;
  callId: string;
  name: string;
  /** The chat arguments as they came: JSON text, `{"input": ...}` for a custom tool. */
  arguments: string;
  status: ResponsesItemStatus;
}

export type ItemState = ReasoningState | MessageState | CallState;

/** A new item's state; its id is derived from the response id and its place in the output. */
export function reasoningState(
  responseId: string,
  outputIndex: number,
  text = '',
  thinkingBlocks: ChatThinkingBlockOut[] = [],
): ReasoningState {
  return {
    kind: 'reasoning',
    id: outputItemId('rs', responseId, outputIndex),
    text,
    thinkingBlocks,
    status: 'in_progress',
  };
}

export function messageState(responseId: string, outputIndex: number, parts: MessagePartState[] = []): MessageState {
  return { kind: 'message', id: outputItemId('msg', responseId, outputIndex), parts, status: 'in_progress' };
}

export function callState(
  responseId: string,
  outputIndex: number,
  call: { callId: string; name: string; arguments?: string },
  form: ResponseForm,
): CallState {
  const custom = form.customToolNames.has(call.name);
  return {
    kind: 'call',
    id: outputItemId(custom ? 'ctc' : 'fc', responseId, outputIndex),
    callId: call.callId,
    name: call.name,
    arguments: call.arguments ?? '',
    status: 'in_progress',
  };
}

export function isCustomCall(state: CallState, form: ResponseForm): boolean {
  return form.customToolNames.has(state.name);
}

/**
 * A custom tool's input from the chat arguments it travelled in (`{"input": text}`). A model that answered the
 * schema with something else still made the call: its arguments are the input as they are.
 */
export function customInputOf(argumentText: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentText);
    if (typeof parsed === 'object' && parsed !== null && customToolInputArgument in parsed) {
      const input = (parsed as Record<string, unknown>)[customToolInputArgument];
      if (typeof input === 'string') return input;
    }
  } catch {
    // Not JSON: the text itself is the input.
  }
  return argumentText;
}

export function messagePartOf(part: MessagePartState): ResponsesMessagePart {
  return part.type === 'output_text'
    ? { type: 'output_text', text: part.text, annotations: [] }
    : { type: 'refusal', refusal: part.text };
}

/** The item a state stands for, at any point of its life (an open item is `in_progress`). */
export function itemOf(state: ItemState, form: ResponseForm): ResponsesOutputItem {
  switch (state.kind) {
    case 'reasoning': {
      const text = { text: state.text };
      return {
        type: 'reasoning',
        id: state.id,
        status: state.status,
        summary: form.reasoningAs === 'summary' && state.text ? [{ type: 'summary_text', ...text }] : [],
        ...(form.reasoningAs === 'content' ? { content: state.text ? [{ type: 'reasoning_text', ...text }] : [] } : {}),
        ...(form.encryptedReasoning && state.status !== 'in_progress'
          ? { encrypted_content: encodeReasoningState({ ...text, thinkingBlocks: state.thinkingBlocks }) }
          : {}),
      };
    }
    case 'message':
      return {
        type: 'message',
        id: state.id,
        role: 'assistant',
        status: state.status,
        content: state.parts.map(messagePartOf),
      };
    case 'call':
      if (isCustomCall(state, form)) {
        return {
          type: 'custom_tool_call',
          id: state.id,
          call_id: state.callId,
          name: state.name,
          input: state.status === 'in_progress' ? '' : customInputOf(state.arguments),
          status: state.status,
        };
      }
      return {
        type: 'function_call',
        id: state.id,
        call_id: state.callId,
        name: state.name,
        arguments: state.status === 'in_progress' ? state.arguments : callArguments(state.arguments),
        status: state.status,
      };
    default: {
      const unknownState: never = state;
      throw new Error(`unknown output item ${JSON.stringify(unknownState)}`);
    }
  }
}
