import { type MediaModality, type MediaPart, mediaPartsOfList, modalityOfMediaType } from '../input-media.ts';
import { isRecord } from '../parse-json.ts';
import type { GenerateContentRequest } from './gemini-request.ts';

/**
 * The media parts of a generate-content request: `inlineData` and `fileData` parts (or their snake_case
 * spellings, which the vendor reads as well), each of the kind its MIME type says, in the contents and in the
 * system instruction, and in the parts a function response carries back.
 * https://ai.google.dev/api/caching#Part
 */
export function geminiMediaParts(request: GenerateContentRequest): MediaPart[] {
  const parts = request.contents.flatMap((content, position) =>
    mediaPartsOfList(content.parts, `contents.${position}.parts`, geminiPartModality, functionResponseParts),
  );
  const system = isRecord(request.systemInstruction) ? request.systemInstruction : request.system_instruction;
  if (!isRecord(system)) return parts;
  return [
    ...parts,
    ...mediaPartsOfList(system.parts, 'systemInstruction.parts', geminiPartModality, functionResponseParts),
  ];
}

function geminiPartModality(part: unknown): MediaModality | undefined {
  if (!isRecord(part)) return undefined;
  const data = part.inlineData ?? part.inline_data ?? part.fileData ?? part.file_data;
  if (!isRecord(data)) return undefined;
  const mediaType = data.mimeType ?? data.mime_type;
  return modalityOfMediaType(typeof mediaType === 'string' ? mediaType : undefined) ?? 'file';
}

function functionResponseParts(part: unknown): { list: unknown; where: string } | undefined {
  if (!isRecord(part)) return undefined;
  const response = part.functionResponse ?? part.function_response;
  return isRecord(response) ? { list: response.parts, where: 'functionResponse.parts' } : undefined;
}
