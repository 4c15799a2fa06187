import {
  type MediaModality,
  type MediaPart,
  mediaPartsOfList,
  mediaTypeOfDataUrl,
  modalityOfMediaType,
} from '../input-media.ts';
import { isRecord } from '../parse-json.ts';
import type { ResponsesRequest } from './openai-responses-request.ts';

/**
 * The media parts of a Responses request: in the content of its input messages and in the outputs of its tool
 * calls. `input_image` is an image and `input_audio` audio; an `input_file` is of the kind its inline data's MIME
 * type says (`data:video/mp4;base64,…` is a video), else a file.
 * https://platform.openai.com/docs/api-reference/responses/create#responses_create-input
 */
export function responsesMediaParts(request: ResponsesRequest): MediaPart[] {
  if (!Array.isArray(request.input)) return [];
  return request.input.flatMap((item: unknown, position) => {
    if (!isRecord(item)) return [];
    return [
      ...mediaPartsOfList(item.content, `input.${position}.content`, responsesPartModality),
      ...mediaPartsOfList(item.output, `input.${position}.output`, responsesPartModality),
    ];
  });
}

/** The kind of a content part; undefined for text and anything else that is not media. */
function responsesPartModality(part: unknown): MediaModality | undefined {
  if (!isRecord(part)) return undefined;
  switch (part.type) {
    case 'input_image':
      return 'image';
    case 'input_audio':
      return 'audio';
    case 'input_file':
      return modalityOfMediaType(mediaTypeOfDataUrl(part.file_data)) ?? 'file';
    default:
      return undefined;
  }
}
