import { type MediaPart, modalityOfMediaType } from '../input-media.ts';
import { isRecord } from '../parse-json.ts';
import type { GenerateContentRequest } from './gemini-request.ts';

/**
 * The media parts of a generate-content request: `inlineData` and `fileData` parts (or their snake_case
 * spellings, which the vendor reads as well), each of the kind its MIME type says, in the contents and in the
 * system instruction, and in the parts a function response carries back.
 * https://ai.google.dev/api/caching#Part
 */
export function geminiMediaParts(request: GenerateContentRequest): MediaPart[] {
  const parts: MediaPart[] = [];
  const collect = (list: unknown, where: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((part, index) => {
      if (!isRecord(part)) return;
      const data = part.inlineData ?? part.inline_data ?? part.fileData ?? part.file_data;
      if (isRecord(data)) {
        const mediaType = data.mimeType ?? data.mime_type;
        const modality = modalityOfMediaType(typeof mediaType === 'string' ? mediaType : undefined) ?? 'file';
        parts.push({ modality, where: `${where}.${index}` });
      }
      const response = part.functionResponse ?? part.function_response;
      if (isRecord(response)) collect(response.parts, `${where}.${index}.functionResponse.parts`);
    });
  };
  request.contents.forEach((content, position) => {
    collect(content.parts, `contents.${position}.parts`);
  });
  const system = isRecord(request.systemInstruction) ? request.systemInstruction : request.system_instruction;
  if (isRecord(system)) collect(system.parts, 'systemInstruction.parts');
  return parts;
}
