import { badRequest } from '../../http/gateway-error.ts';
import { mediaTypeOfDataUrl, modalityOfMediaType } from '../../wires/input-media.ts';
import type { ChatToolCallOut } from '../../wires/openai-chat/openai-chat-answer.ts';
import type { ChatMediaPartOut, ChatMessageOut, ChatTextPartOut } from '../../wires/openai-chat/openai-chat-request.ts';
import type { ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import {
  type ResponsesContentPart,
  type ResponsesMessageItem,
  type ResponsesReasoningItem,
  type ResponsesToolOutput,
  readInputItem,
} from '../../wires/openai-responses/openai-responses-input.ts';
import { customToolInputArgument } from './convert-responses-tools.ts';
import { decodeReasoningState, type ReasoningState } from './reasoning-state.ts';
import { storedStateUnsupported } from './stored-state.ts';

type AssistantMessage = Extract<ChatMessageOut, { role: 'assistant' }>;
type UserPart = ChatTextPartOut | ChatMediaPartOut;

/**
 * `instructions` and `input` → chat messages. `instructions` becomes a leading system message, as the vendor
 * describes it ("a system (or developer) message inserted into the model's context"); a string `input` is one user
 * message. In an input list:
 *
 * - messages keep their role (`developer` is sent as `system`); text, refusals, images (`input_image` by URL) and
 *   inline images and videos sent as files (`input_file` with a `data:image/…` or `data:video/…` URL) are carried;
 *   other files and audio are refused;
 * - `function_call` and `custom_tool_call` items are the tool calls of one assistant message, with the text of an
 *   assistant message just before them, as chat groups them; a custom tool's input travels as `{"input": text}`;
 * - `function_call_output` and `custom_tool_call_output` items are `tool` messages, each for a call made earlier in
 *   the input (a result for no call is refused); images in a result, which a chat tool message cannot hold, follow
 *   the results in a user message;
 * - a `reasoning` item goes back as the `reasoning_content` of the assistant message after it: the text the
 *   gateway's own `encrypted_content` holds (reasoning-state.ts), else its reasoning text, else its summary; the
 *   signed blocks that state holds go back unchanged as that message's `thinking_blocks`;
 * - an `item_reference` names an item stored by the server: one to a reasoning item is left out (reasoning is
 *   context the model can do without), any other is refused, as the gateway stores nothing.
 *
 * Every other item type is refused by name rather than dropped: dropping it would change what the model answers to
 * without the client knowing.
 */
export function convertResponsesInput(
  input: string | readonly { type?: string | undefined }[],
  instructions: string | null | undefined,
): ChatMessageOut[] {
  const messages: ChatMessageOut[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }

  /** The assistant message the next tool call joins, until something else comes between. */
  let openAssistant: AssistantMessage | undefined;
  /** Reasoning waiting for the assistant message it led to: its text, and the upstream's signed blocks. */
  let pendingReasoning: string[] = [];
  let pendingThinkingBlocks: ChatThinkingBlockOut[] = [];
  /** Images from tool results, sent as a user message once the run of results ends. */
  let resultImages: ChatMediaPartOut[] = [];
  const calls = new Set<string>();

  const flushResultImages = () => {
    if (resultImages.length === 0) return;
    messages.push({ role: 'user', content: resultImages });
    resultImages = [];
  };
  const startAssistant = (content: AssistantMessage['content']): AssistantMessage => {
    flushResultImages();
    const message: AssistantMessage = { role: 'assistant', content };
    if (pendingReasoning.length > 0) message.reasoning_content = pendingReasoning.join('\n\n');
    if (pendingThinkingBlocks.length > 0) message.thinking_blocks = pendingThinkingBlocks;
    pendingReasoning = [];
    pendingThinkingBlocks = [];
    messages.push(message);
    return message;
  };
  const addCall = (call: ChatToolCallOut) => {
    openAssistant ??= startAssistant(null);
    openAssistant.tool_calls = [...(openAssistant.tool_calls ?? []), call];
    calls.add(call.id);
  };
  const addResult = (callId: string, output: ResponsesToolOutput, where: string) => {
    if (!calls.has(callId)) {
      throw badRequest(
        'unmatched_tool_output',
        `${where} is the output of call ${callId}, but no function_call or custom_tool_call before it has that call_id.`,
      );
    }
    openAssistant = undefined;
    const { text, images } = toolOutputOf(output, `${where}.output`);
    messages.push({ role: 'tool', tool_call_id: callId, content: text });
    resultImages.push(...images);
  };

  input.forEach((listed, position) => {
    const where = `input.${position}`;
    const item = readInputItem(listed, position);
    switch (item.type) {
      case 'message':
        openAssistant = undefined;
        if (item.role === 'assistant') {
          openAssistant = startAssistant(assistantContentOf(item, where));
        } else {
          flushResultImages();
          pendingReasoning = [];
          pendingThinkingBlocks = [];
          messages.push(messageOf(item, where));
        }
        return;
      case 'function_call':
        addCall({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
        return;
      case 'custom_tool_call':
        addCall({
          id: item.call_id,
          type: 'function',
          function: { name: item.name, arguments: JSON.stringify({ [customToolInputArgument]: item.input }) },
        });
        return;
      case 'function_call_output':
      case 'custom_tool_call_output':
        addResult(item.call_id, item.output, where);
        return;
      case 'reasoning': {
        openAssistant = undefined;
        const reasoning = reasoningOf(item);
        if (reasoning.text) pendingReasoning.push(reasoning.text);
        pendingThinkingBlocks.push(...(reasoning.thinkingBlocks ?? []));
        return;
      }
      case 'item_reference':
        if (item.id.startsWith('rs_')) return;
        throw storedStateUnsupported(
          `${where} is an item_reference`,
          'it names an item stored by the server; send the item itself (with the Vercel AI SDK: providerOptions.openai.store = false)',
        );
      case 'other':
        throw badRequest(
          'unsupported_responses_input',
          `${where} is an item of type ${item.itemType}, which cannot be translated for this model; send messages, function calls and their outputs.`,
        );
      default: {
        const unknownItem: never = item;
        throw new Error(`unknown input item ${JSON.stringify(unknownItem)}`);
      }
    }
  });
  flushResultImages();
  return messages;
}

function messageOf(item: ResponsesMessageItem, where: string): ChatMessageOut {
  switch (item.role) {
    case 'user':
      return { role: 'user', content: userContentOf(item.content, where) };
    // Compatible chat upstreams do not all know `developer`; for a model without the vendor's instruction
    // hierarchy it means what `system` means.
    case 'system':
    case 'developer':
      return { role: 'system', content: textContentOf(item.content, where) };
    case 'assistant':
      return { role: 'assistant', content: assistantContentOf(item, where) };
    default: {
      const unknownRole: never = item.role;
      throw new Error(`unknown message role ${String(unknownRole)}`);
    }
  }
}

function assistantContentOf(item: ResponsesMessageItem, where: string): string | ChatTextPartOut[] {
  return textContentOf(item.content, where);
}

/** One text part is sent as a plain string, the form every compatible upstream accepts. */
function textContentOf(content: string | readonly ResponsesContentPart[], where: string): string | ChatTextPartOut[] {
  if (typeof content === 'string') return content;
  const parts = content.map((part, position) => {
    const converted = userPartOf(part, `${where}.content.${position}`);
    if (converted.type !== 'text') {
      throw badRequest(
        'unsupported_content_part',
        `${where}.content.${position} is ${converted.type === 'image_url' ? 'an image' : 'a video'}, which only a user message or a tool's output may hold.`,
      );
    }
    return converted;
  });
  return singleText(parts);
}

function userContentOf(content: string | readonly ResponsesContentPart[], where: string): string | UserPart[] {
  if (typeof content === 'string') return content;
  const parts = content.map((part, position) => userPartOf(part, `${where}.content.${position}`));
  return parts.every((part) => part.type === 'text') ? singleText(parts as ChatTextPartOut[]) : parts;
}

function singleText(parts: ChatTextPartOut[]): string | ChatTextPartOut[] {
  const [only] = parts;
  return parts.length === 1 && only ? only.text : parts;
}

function userPartOf(part: ResponsesContentPart, where: string): UserPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    // A refusal resent as history is what the assistant said; chat carries it as text.
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image': {
      if (!part.image_url) {
        throw badRequest(
          'unsupported_content_part',
          `${where} is an image by file id, which only the vendor's file store can resolve; send image_url as an https: or base64 data: URL.`,
        );
      }
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
    }
    case 'input_file':
      return filePartOf(part, where);
    case 'input_audio':
      throw badRequest(
        'unsupported_content_part',
        `${where} is audio, which chat upstreams take in no common form; send text, images and video.`,
      );
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown content part ${JSON.stringify(unknownPart)}`);
    }
  }
}

/**
 * An inline file that is an image or a video goes as that part (`image_url`, `video_url`), the forms chat upstreams
 * read; any other file (a PDF, a text file), a file by URL and one stored upstream by id are refused by name.
 */
function filePartOf(part: Extract<ResponsesContentPart, { type: 'input_file' }>, where: string): UserPart {
  const mediaType = mediaTypeOfDataUrl(part.file_data);
  const url = part.file_data ?? '';
  switch (modalityOfMediaType(mediaType)) {
    case 'image':
      return { type: 'image_url', image_url: { url } };
    case 'video':
      return { type: 'video_url', video_url: { url } };
    default:
      throw badRequest(
        'unsupported_content_part',
        mediaType === undefined
          ? `${where} is a file by ${part.file_id ? 'id' : 'URL'}, which only the vendor's file store can resolve; send file_data as a base64 data: URL.`
          : `${where} is a file of type ${mediaType}, which cannot be translated for this model; send text, images (input_image) and video (input_file with data:video/…).`,
      );
  }
}

/** A tool's output: its text for the tool message, its media for the user message after the results. */
function toolOutputOf(
  output: ResponsesToolOutput,
  where: string,
): { text: string | ChatTextPartOut[]; images: ChatMediaPartOut[] } {
  if (typeof output === 'string') return { text: output, images: [] };
  const parts = output.map((part, position) => userPartOf(part, `${where}.${position}`));
  const texts = parts.filter((part): part is ChatTextPartOut => part.type === 'text');
  const images = parts.filter((part): part is ChatMediaPartOut => part.type !== 'text');
  return { text: texts.length > 0 ? singleText(texts) : '', images };
}

/**
 * The reasoning an item gives back: the gateway's own state where it carries one, else its text or its summary.
 * An item that carries state of another form is another model's: the vendor's encrypted reasoning, from a model on
 * a native Responses connection (an agent that switched model midway). Its summary is that model's account of its
 * own thinking, not this model's, and on the K2.7 route it would go upstream as a thinking block without a
 * signature, which a strict upstream refuses; so it gives nothing back, as the gateway's own reasoning is left out
 * on the way to the vendor (gateway-made-items.ts).
 */
function reasoningOf(item: ResponsesReasoningItem): ReasoningState {
  const state = decodeReasoningState(item.encrypted_content);
  if (state) return state;
  if (item.encrypted_content) return { text: '' };
  const joined = (parts: readonly { text: string }[] | null | undefined) =>
    (parts ?? []).map((part) => part.text).join('\n\n');
  return { text: joined(item.content) || joined(item.summary) };
}
