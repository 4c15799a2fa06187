import { isRecord } from './parse-json.ts';
import type { UpstreamWire } from './wire-names.ts';

/**
 * The kinds of input a request may hold beside text (spec §2.2 lists image and video per model). Each client wire
 * says where its media stand (`<wire>-media.ts` beside it); the catalog and a connection's declarations say which a
 * model takes (shared/catalog/input-modalities.ts).
 */
export const mediaModalities = ['image', 'video', 'audio', 'file'] as const;
export type MediaModality = (typeof mediaModalities)[number];
export const inputModalities = ['text', ...mediaModalities] as const;
export type InputModality = (typeof inputModalities)[number];

/** One media part of a client's request: its kind, and where it stands, for a refusal to name. */
export interface MediaPart {
  modality: MediaModality;
  where: string;
}

/** A MIME type's kind: `image/…`, `video/…`, `audio/…`; anything else (PDF, text, office files) is a file. */
export function modalityOfMediaType(mediaType: string | undefined): MediaModality | undefined {
  if (mediaType === undefined || mediaType.length === 0) return undefined;
  const kind = mediaType.slice(0, mediaType.indexOf('/')).toLowerCase();
  switch (kind) {
    case 'image':
    case 'video':
    case 'audio':
      return kind;
    default:
      return 'file';
  }
}

/** The MIME type a `data:` URL states (`data:video/mp4;base64,…` → `video/mp4`); undefined for any other URL. */
export function mediaTypeOfDataUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || !url.startsWith('data:')) return undefined;
  const end = url.slice(0, 256).search(/[;,]/);
  return end === -1 ? undefined : url.slice('data:'.length, end) || undefined;
}

/** The URL of a part's `{url}` object, or the part's value when a wire allows the bare string (Kimi's chat API). */
export function urlOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return isRecord(value) && typeof value.url === 'string' ? value.url : undefined;
}

/**
 * The media parts of one list of a request's parts (a message's content, a tool result's), each named by where it
 * stands, `where` naming the list. A part that holds a list of its own (a tool result's content) is followed by
 * that list's media, walked the same way: `nestedList` gives the list and its name under the part.
 */
export function mediaPartsOfList(
  list: unknown,
  where: string,
  modalityOf: (part: unknown) => MediaModality | undefined,
  nestedList?: (part: unknown) => { list: unknown; where: string } | undefined,
): MediaPart[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((part: unknown, index) => {
    const place = `${where}.${index}`;
    const modality = modalityOf(part);
    const own: MediaPart[] = modality ? [{ modality, where: place }] : [];
    const nested = nestedList?.(part);
    if (nested === undefined) return own;
    return [...own, ...mediaPartsOfList(nested.list, `${place}.${nested.where}`, modalityOf, nestedList)];
  });
}

/**
 * The media a connection's wire has a form for. Chat: `image_url`, `video_url` (as the alpha family's chat route
 * and other video engines document it), `input_audio` and `file`. Responses: `input_image`, `input_file` and
 * `input_audio`; no video. Messages: `image` and `document` blocks; the format has no video or audio block, and no
 * engine of the alpha family documents one. Generate-content: every kind, by MIME type.
 * https://platform.openai.com/docs/api-reference/chat/create, https://docs.anthropic.com/en/api/messages,
 * https://ai.google.dev/gemini-api/docs/vision
 */
export function mediaCarriedBy(wire: UpstreamWire): readonly MediaModality[] {
  switch (wire) {
    case 'openai-chat':
      return ['image', 'video', 'audio', 'file'];
    case 'openai-responses':
      return ['image', 'audio', 'file'];
    case 'anthropic-messages':
      return ['image', 'file'];
    case 'gemini':
      return mediaModalities;
    // Image blocks only: Converse's document and video blocks take no form a chat part carries across.
    case 'bedrock-converse':
      return ['image'];
    default: {
      const unknownWire: never = wire;
      throw new Error(`unknown wire ${String(unknownWire)}`);
    }
  }
}

/** How a kind of media is named in a message: "an image", "a video", "audio", "a file". */
export function describeModality(modality: MediaModality): string {
  switch (modality) {
    case 'image':
      return 'an image';
    case 'video':
      return 'a video';
    case 'audio':
      return 'audio';
    case 'file':
      return 'a file';
    default: {
      const unknownModality: never = modality;
      throw new Error(`unknown modality ${String(unknownModality)}`);
    }
  }
}

/** Inline media found in a body: its MIME type and its data as it stands there (base64, or a text document's text). */
export interface InlineMedia {
  mediaType: string;
  payload: string;
}

/** The keys beside a `data` string that make it inline media rather than text: each wire's MIME type key. */
const mediaTypeKeys = ['media_type', 'mimeType', 'mime_type'] as const;

/** A base64 `data:` URL (`data:image/png;base64,…`), the way chat and Responses requests inline media. */
export function inlineMediaOfString(text: string): InlineMedia | undefined {
  if (!text.startsWith('data:')) return undefined;
  const marker = text.slice(0, 256).indexOf(';base64,');
  if (marker === -1) return undefined;
  return { mediaType: mediaTypeOfDataUrl(text) ?? '', payload: text.slice(marker + ';base64,'.length) };
}

/**
 * An object whose `data` is inline media: a messages base64 source (`{type, media_type, data}`), a generate-content
 * `inlineData` (`{mimeType, data}`, or `mime_type`).
 */
export function inlineMediaOfObject(value: object): InlineMedia | undefined {
  const fields = value as Record<string, unknown>;
  if (typeof fields.data !== 'string') return undefined;
  for (const key of mediaTypeKeys) {
    const mediaType = fields[key];
    if (typeof mediaType === 'string') return { mediaType, payload: fields.data };
  }
  return undefined;
}
