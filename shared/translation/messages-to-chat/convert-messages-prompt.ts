import { badRequest } from '../../http/gateway-error.ts';
import {
  isKnownBlock,
  type MessagesContentBlockIn,
  type MessagesImageBlockIn,
  type MessagesKnownBlockIn,
  type MessagesToolResultBlockIn,
  type MessagesTurnIn,
  type TranslatableMessagesRequest,
} from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { ChatToolCallOut } from '../../wires/openai-chat/openai-chat-answer.ts';
import type {
  ChatAssistantMessageOut,
  ChatImagePartOut,
  ChatMessageOut,
  ChatTextPartOut,
} from '../../wires/openai-chat/openai-chat-request.ts';
import type { ChatThinkingBlockOut } from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';

/**
 * The messages format's `system` and turns → chat messages.
 *
 * - `system` (a string or text blocks) becomes one leading system message, its blocks joined by blank lines: the
 *   plain-string form every compatible upstream accepts. `cache_control` breakpoints are hints to the vendor's
 *   prompt cache, which chat upstreams manage by themselves; they are not carried.
 * - A user turn's `tool_result` blocks become `tool` messages, first and in order, since chat wants each result
 *   right after the assistant message that called it; its text and images follow as one user message.
 * - An assistant turn's text becomes `content`, its `tool_use` blocks `tool_calls`, and its thinking
 *   `reasoning_content`, the signed blocks also as `thinking_blocks`, unchanged (openai-chat-thinking-blocks.ts).
 * - Any other block (documents, server tool blocks, search results...) is refused by name.
 */
export function convertMessagesPrompt(request: TranslatableMessagesRequest): ChatMessageOut[] {
  const messages: ChatMessageOut[] = [];
  const system = systemText(request.system);
  if (system.length > 0) messages.push({ role: 'system', content: system });
  request.messages.forEach((turn, position) => {
    messages.push(...(turn.role === 'user' ? userMessages(turn, position) : [assistantMessage(turn, position)]));
  });
  return messages;
}

function systemText(system: TranslatableMessagesRequest['system']): string {
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  return system
    .map((block) => block.text)
    .filter((text) => text.length > 0)
    .join('\n\n');
}

/** The blocks of a turn, each known one by its type; any other is refused with where it is. */
function blocksOf(turn: MessagesTurnIn, position: number): MessagesKnownBlockIn[] {
  if (typeof turn.content === 'string') return [{ type: 'text', text: turn.content }];
  return turn.content.map((block, index) => {
    if (!isKnownBlock(block)) throw unsupportedBlock(block, `messages.${position}.content.${index}`);
    return block;
  });
}

function unsupportedBlock(block: MessagesContentBlockIn, where: string) {
  return badRequest(
    'unsupported_content_part',
    `${where} is a ${block.type} block, which cannot be sent to this model's upstream (a chat-format connection); send text, images, tool_use and tool_result blocks.`,
  );
}

function userMessages(turn: MessagesTurnIn, position: number): ChatMessageOut[] {
  const toolMessages: ChatMessageOut[] = [];
  const parts: (ChatTextPartOut | ChatImagePartOut)[] = [];
  blocksOf(turn, position).forEach((block, index) => {
    const where = `messages.${position}.content.${index}`;
    switch (block.type) {
      case 'text':
        if (block.text.length > 0) parts.push({ type: 'text', text: block.text });
        return;
      case 'image':
        parts.push(imagePartOf(block));
        return;
      case 'tool_result':
        toolMessages.push(...toolResultMessages(block));
        return;
      case 'tool_use':
      case 'thinking':
      case 'redacted_thinking':
        throw badRequest('invalid_request', `${where}: a ${block.type} block belongs in an assistant turn.`);
      default: {
        const unknownBlock: never = block;
        throw new Error(`unknown block ${JSON.stringify(unknownBlock)}`);
      }
    }
  });
  if (parts.length === 0) return toolMessages;
  const onlyText = parts.every((part) => part.type === 'text');
  // One text part is sent as a plain string, the form every compatible upstream accepts.
  const content = onlyText && parts.length === 1 ? (parts[0] as ChatTextPartOut).text : parts;
  return [...toolMessages, { role: 'user', content }];
}

/** Base64 data becomes a `data:` URL; a URL stays one (whether remote media may go at all is decided before this). */
function imagePartOf(block: MessagesImageBlockIn): ChatImagePartOut {
  const { source } = block;
  const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: 'image_url', image_url: { url } };
}

/**
 * A tool's result → a `tool` message, whose content chat keeps to text. A result the tool marked as an error
 * (`is_error`) says so in its text, chat's only way to tell the model. Images a tool returned cannot go in a tool
 * message, so they follow it in a user message that names the call they came from.
 */
function toolResultMessages(block: MessagesToolResultBlockIn): ChatMessageOut[] {
  const content = block.content ?? '';
  const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  const text = blocks.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  const images = blocks.filter((part): part is MessagesImageBlockIn => part.type === 'image').map(imagePartOf);
  const messages: ChatMessageOut[] = [
    { role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${text}` : text },
  ];
  if (images.length > 0) {
    messages.push({
      role: 'user',
      content: [{ type: 'text', text: `The images tool call ${block.tool_use_id} returned:` }, ...images],
    });
  }
  return messages;
}

function assistantMessage(turn: MessagesTurnIn, position: number): ChatAssistantMessageOut {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const thinkingBlocks: ChatThinkingBlockOut[] = [];
  const toolCalls: ChatToolCallOut[] = [];
  blocksOf(turn, position).forEach((block, index) => {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        return;
      case 'thinking':
        reasoning.push(block.thinking);
        // A signature is the upstream's: only a signed block can go back to one that checks them.
        if (block.signature) {
          thinkingBlocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        }
        return;
      case 'redacted_thinking':
        thinkingBlocks.push({ type: 'redacted_thinking', data: block.data });
        return;
      case 'tool_use':
        toolCalls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input) },
        });
        return;
      case 'image':
      case 'tool_result':
        throw badRequest(
          'invalid_request',
          `messages.${position}.content.${index}: a ${block.type} block belongs in a user turn.`,
        );
      default: {
        const unknownBlock: never = block;
        throw new Error(`unknown block ${JSON.stringify(unknownBlock)}`);
      }
    }
  });
  const text = texts.join('');
  return {
    role: 'assistant',
    content: text.length > 0 || toolCalls.length === 0 ? text : null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(reasoning.some((part) => part.length > 0) ? { reasoning_content: reasoning.join('') } : {}),
    ...(thinkingBlocks.length > 0 ? { thinking_blocks: thinkingBlocks } : {}),
  };
}
