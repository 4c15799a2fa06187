import {
  type MediaModality,
  type MediaPart,
  mediaPartsOfList,
  mediaTypeOfDataUrl,
  modalityOfMediaType,
  urlOf,
} from '../input-media.ts';
import { isRecord } from '../parse-json.ts';
import type { ChatRequest } from './openai-chat-request.ts';

/**
 * The media parts of a Chat Completions request, wherever a message's content list holds them: `image_url`,
 * `video_url` (the alpha family's chat route, vLLM and other video engines), `input_audio` and `audio_url`, and
 * `file` (inline `file_data` or a file id), whose kind is its data's MIME type where it states one.
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
export function chatMediaParts(request: ChatRequest): MediaPart[] {
  return request.messages.flatMap((message, position) =>
    mediaPartsOfList(message.content, `messages.${position}.content`, chatPartModality),
  );
}

function chatPartModality(part: unknown): MediaModality | undefined {
  if (!isRecord(part)) return undefined;
  switch (part.type) {
    case 'image_url':
      return 'image';
    case 'video_url':
      return 'video';
    case 'input_audio':
    case 'audio_url':
      return 'audio';
    case 'file': {
      const file = isRecord(part.file) ? part.file : {};
      return modalityOfMediaType(mediaTypeOfDataUrl(urlOf(file.file_data))) ?? 'file';
    }
    default:
      return undefined;
  }
}
