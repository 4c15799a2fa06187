import { type MediaModality, type MediaPart, mediaPartsOfList } from '../input-media.ts';
import { isRecord } from '../parse-json.ts';
import type { MessagesRequest } from './anthropic-messages-request.ts';

/**
 * The media blocks of a Messages request, in its turns and in the results of its tool calls: `image` blocks, and
 * `document` blocks (PDF, plain text), files. The format has no video or audio block; a block of such a type that
 * some engine might add is read as what it names, so the model's catalog entry decides it like any other.
 * https://docs.anthropic.com/en/api/messages
 */
export function messagesMediaParts(request: MessagesRequest): MediaPart[] {
  return request.messages.flatMap((turn, position) =>
    mediaPartsOfList(turn.content, `messages.${position}.content`, messagesBlockModality, toolResultContent),
  );
}

function toolResultContent(block: unknown): { list: unknown; where: string } | undefined {
  return isRecord(block) && block.type === 'tool_result' ? { list: block.content, where: 'content' } : undefined;
}

function messagesBlockModality(block: unknown): MediaModality | undefined {
  if (!isRecord(block)) return undefined;
  switch (block.type) {
    case 'image':
      return 'image';
    case 'document':
      return 'file';
    case 'video':
    case 'audio':
      return block.type;
    default:
      return undefined;
  }
}
