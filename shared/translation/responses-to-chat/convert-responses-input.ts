import { badRequest } from '../../http/gateway-error.ts';
import type { ChatMessageOut, ChatTextPartOut } from '../../wires/openai-chat/openai-chat-request.ts';
import {
  isMessageItem,
  type ResponsesContentPart,
  type ResponsesInputItem,
  type ResponsesMessageItem,
} from '../../wires/openai-responses/openai-responses-request.ts';

const textOnlyAdvice = 'Send input as a string, or as {role, content} messages whose content is text.';

/**
 * `instructions` and `input` → chat messages. `instructions` becomes a leading system message, as the vendor
 * describes it ("a system (or developer) message inserted into the model's context"). A string `input` is one
 * user message; an array is a list of text messages. Everything else in an input list (images, files, function
 * calls and their outputs, item references, reasoning items) is refused rather than dropped: dropping any of
 * them would change what the model answers to without the client knowing.
 */
export function convertResponsesInput(
  input: string | readonly ResponsesInputItem[],
  instructions: string | null | undefined,
): ChatMessageOut[] {
  const messages: ChatMessageOut[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  input.forEach((item, position) => {
    if (!isMessageItem(item)) {
      throw badRequest(
        'unsupported_responses_input',
        `input.${position} is an item of type ${item.type}, which cannot be translated for this model. ${textOnlyAdvice}`,
      );
    }
    messages.push(messageOf(item, position));
  });
  return messages;
}

function messageOf(item: ResponsesMessageItem, position: number): ChatMessageOut {
  const content = contentOf(item.content, position);
  switch (item.role) {
    case 'user':
    case 'assistant':
    case 'system':
      return { role: item.role, content };
    // Compatible chat upstreams do not all know `developer`; for a model without the vendor's instruction
    // hierarchy it means what `system` means.
    case 'developer':
      return { role: 'system', content };
    default: {
      const unknownRole: never = item.role;
      throw new Error(`unknown message role ${String(unknownRole)}`);
    }
  }
}

/** One text part is sent as a plain string, the form every compatible upstream accepts. */
function contentOf(content: string | readonly ResponsesContentPart[], position: number): ChatMessageOut['content'] {
  if (typeof content === 'string') return content;
  const parts = content.map((part, partPosition) => textPartOf(part, `input.${position}.content.${partPosition}`));
  const [only] = parts;
  return parts.length === 1 && only ? only.text : parts;
}

function textPartOf(part: ResponsesContentPart, where: string): ChatTextPartOut {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    // A refusal resent as history is what the assistant said; chat carries it as text.
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image':
    case 'input_file':
    case 'input_audio':
      throw badRequest(
        'unsupported_responses_input',
        `${where} is a content part of type ${part.type}, which cannot be translated for this model. ${textOnlyAdvice}`,
      );
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown content part ${JSON.stringify(unknownPart)}`);
    }
  }
}
