import { badRequest } from '../../http/gateway-error.ts';
import {
  type ConverseImageBlock,
  type ConverseImageFormat,
  type ConverseTextBlock,
  type ConverseUserBlock,
  converseImageFormats,
} from '../../wires/bedrock-converse/bedrock-converse-request.ts';
import type { ChatTextContent, ChatUserPart } from '../../wires/openai-chat/openai-chat-request.ts';

/**
 * Converse refuses a blank text block ("The text field in the ContentBlock object is blank"), which chat clients
 * send freely (`content: ""`); a blank part says nothing, so it is left out.
 */
export function converseTextBlocks(content: ChatTextContent): ConverseTextBlock[] {
  const texts = typeof content === 'string' ? [content] : content.map((part) => part.text);
  return texts.filter((text) => text.trim().length > 0).map((text) => ({ text }));
}

export function converseUserBlocks(content: string | ChatUserPart[]): ConverseUserBlock[] {
  if (typeof content === 'string') return converseTextBlocks(content);
  return content.flatMap((part): ConverseUserBlock[] => {
    switch (part.type) {
      case 'text':
        return converseTextBlocks(part.text);
      case 'image_url':
        return [converseImageBlock(part.image_url.url)];
      case 'input_audio':
      case 'file':
      case 'video_url':
        throw badRequest(
          'unsupported_content_part',
          `Content parts of type ${part.type} cannot be sent to this model's upstream, Bedrock's Converse API, through the gateway; send text and images only.`,
        );
      default: {
        const unknownPart: never = part;
        throw new Error(`unknown content part ${JSON.stringify(unknownPart)}`);
      }
    }
  });
}

/** `image/jpeg` → `jpeg`: the formats Converse names. */
function converseImageFormat(mediaType: string): ConverseImageFormat | undefined {
  const format = mediaType.startsWith('image/') ? mediaType.slice('image/'.length) : '';
  return (converseImageFormats as readonly string[]).includes(format) ? (format as ConverseImageFormat) : undefined;
}

/**
 * A base64 `data:` URL becomes an image block with its bytes inline. Converse takes an image's bytes or an S3
 * location, never a web address, and the gateway fetches nothing on a caller's behalf (it would be a request the
 * reservation and the network rules never saw), so a remote URL is refused by name.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageSource.html
 */
export function converseImageBlock(url: string): ConverseImageBlock {
  if (!url.startsWith('data:')) {
    throw badRequest(
      'unsupported_image_url',
      "This model's upstream, Bedrock's Converse API, takes images inline only; send the image as a base64 data: URL (data:image/png;base64,...).",
    );
  }
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice('data:'.length, comma);
  const [mediaType = '', ...parameters] = header.split(';');
  if (comma === -1 || !parameters.includes('base64') || comma === url.length - 1) {
    throw badRequest('invalid_image_url', 'A data: image URL must be base64-encoded (data:image/png;base64,...).');
  }
  const format = converseImageFormat(mediaType);
  if (format === undefined) {
    throw badRequest(
      'unsupported_image_type',
      `Images of type ${mediaType || 'unknown'} are not supported; send image/png, image/jpeg, image/gif or image/webp.`,
    );
  }
  return { image: { format, source: { bytes: url.slice(comma + 1) } } };
}
