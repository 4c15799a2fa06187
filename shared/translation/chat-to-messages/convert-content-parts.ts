import { badRequest } from '../../http/gateway-error.ts';
import type {
  MessagesImageBlock,
  MessagesTextBlock,
  MessagesUserBlock,
} from '../../wires/anthropic-messages/anthropic-messages-request.ts';
import type { ChatTextContent, ChatUserPart } from '../../wires/openai-chat/openai-chat-request.ts';

/** The image types the messages format accepts. https://docs.anthropic.com/en/docs/build-with-claude/vision */
const imageMediaTypes = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** The messages format refuses empty text blocks, which chat clients send freely (`content: ""`). */
export function textBlocksOf(content: ChatTextContent): MessagesTextBlock[] {
  const texts = typeof content === 'string' ? [content] : content.map((part) => part.text);
  return texts.filter((text) => text.length > 0).map((text) => ({ type: 'text', text }));
}

export function userBlocksOf(content: string | ChatUserPart[]): MessagesUserBlock[] {
  if (typeof content === 'string') return textBlocksOf(content);
  return content.flatMap((part): MessagesUserBlock[] => {
    switch (part.type) {
      case 'text':
        return part.text.length > 0 ? [{ type: 'text', text: part.text }] : [];
      case 'image_url':
        return [imageBlockOf(part.image_url.url)];
      // The messages format has no video or audio block (no engine of the alpha family documents one either), and
      // a chat file part names no media type the messages format's documents could be checked against.
      case 'input_audio':
      case 'file':
      case 'video_url':
        throw badRequest(
          'unsupported_content_part',
          `Content parts of type ${part.type} cannot be sent to this model's upstream, which speaks the messages format (it has image blocks, no video or audio); send text and images only.`,
        );
      default: {
        const unknownPart: never = part;
        throw new Error(`unknown content part ${JSON.stringify(unknownPart)}`);
      }
    }
  });
}

/**
 * A `data:` URL becomes an inline base64 image. A remote URL is passed as a URL source: whether remote media
 * is allowed at all is the finite-allowance rule of the validate stage (spec §8 rule 4), decided before this.
 */
export function imageBlockOf(url: string): MessagesImageBlock {
  if (url.startsWith('https://') || url.startsWith('http://')) {
    return { type: 'image', source: { type: 'url', url } };
  }
  if (!url.startsWith('data:')) {
    throw badRequest('invalid_image_url', 'image_url.url must be an http(s) URL or a base64 data: URL.');
  }
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice('data:'.length, comma);
  const [mediaType = '', ...parameters] = header.split(';');
  if (comma === -1 || !parameters.includes('base64')) {
    throw badRequest('invalid_image_url', 'A data: image URL must be base64-encoded (data:image/png;base64,...).');
  }
  if (!imageMediaTypes.has(mediaType)) {
    throw badRequest(
      'unsupported_image_type',
      `Images of type ${mediaType || 'unknown'} are not supported; send image/jpeg, image/png, image/gif or image/webp.`,
    );
  }
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: url.slice(comma + 1) } };
}
