import { GIF } from 'image-size/types/gif';
import { JPG } from 'image-size/types/jpg';
import { PNG } from 'image-size/types/png';
import { WEBP } from 'image-size/types/webp';
import { type MediaModality, modalityOfMediaType } from '../wires/input-media.ts';

/**
 * What the input estimate reserves for one piece of inline media (a base64 `data:` URL, or base64 `data` beside a
 * MIME type: a messages image source, a generate-content `inlineData`). Its base64 text says little about its tokens:
 * a vision model reads pixels, not bytes, so the rule is per kind.
 *
 * - **An image** counts one token per 14×14-pixel patch of its size as its header states it (PNG, JPEG, GIF,
 *   WebP: the formats every vendor takes), and at least 258. 14 pixels is the finest patch of the vision
 *   encoders in use (the alpha family's MoonViT, Qwen's and Llama's encoders); the vendors merge patches (2×2 for
 *   the alpha family and Qwen: one token per 28×28) and shrink large images (Anthropic to 1.15 megapixels, about
 *   1,600 tokens; OpenAI to 2048×768 tiles), so what they bill is several times lower; 258 is Gemini's flat price
 *   of a small image, the highest of a tiny one. An image whose header cannot be read, or in another format (HEIF,
 *   BMP, TIFF: read by no detector here, to keep `image-size`'s other 20 out of the bundles), is priced as its text.
 * - **A video** is priced as its text — about 1.3 tokens a byte, for ordinary video hundreds of times what a vendor
 *   bills for its length (Gemini documents 263 tokens a second) — and marks the request, so that where the model's
 *   context window is stated the reservation holds the whole window for the input (`reservedInputTokens`): its
 *   count depends on its duration and on the frames the upstream samples, which the gateway does not decode, and
 *   the window is the most any upstream bills as input.
 * - **Audio and files** (PDFs, text) are priced as their text, far above what a vendor bills for either.
 *
 * None of it is counted as input the request surely has: a vendor may shrink an image or sample few frames of a
 * video, so the context-window check leaves media out (`InputEstimate.mediaTokens`).
 */

/** The side of the square of pixels one image token stands for, at most: the finest patch of any vision encoder. */
export const imagePatchPixels = 14;

/** The fewest tokens an image is reserved: Gemini's price of an image up to 384×384 pixels. */
export const smallestImageTokens = 258;

/** What one piece of inline media is reserved, and its kind. */
export interface MediaEstimate {
  modality: MediaModality;
  tokens: number;
}

/**
 * The estimate of one piece of inline media: `payload` is its data as it stands in the body (base64, or plain text
 * for a messages text document), `priceAsText` the estimator's price of that text.
 */
export function estimateMediaTokens(
  mediaType: string,
  payload: string,
  priceAsText: (text: string) => number,
): MediaEstimate {
  const modality = modalityOfMediaType(mediaType) ?? 'file';
  if (modality === 'image') {
    const tokens = imageTokens(payload);
    if (tokens !== undefined) return { modality, tokens };
  }
  return { modality, tokens: priceAsText(payload) };
}

/** One token per 14×14 patch of the image's stated size, at least 258; undefined when its header cannot be read. */
export function imageTokens(base64: string): number | undefined {
  try {
    const { width, height } = imageHeaderSize(Buffer.from(base64, 'base64')) ?? {};
    if (width === undefined || height === undefined) return undefined;
    if (!(width > 0 && height > 0)) return undefined;
    const patches = Math.ceil(width / imagePatchPixels) * Math.ceil(height / imagePatchPixels);
    return Math.max(smallestImageTokens, patches);
  } catch {
    return undefined;
  }
}

/** The detectors of the formats vision models take, from `image-size`, without the rest of its formats. */
const imageDetectors = [PNG, JPG, GIF, WEBP];

/** The size an image's header states, by the first detector that recognizes it. */
function imageHeaderSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const detector = imageDetectors.find((candidate) => candidate.validate(bytes));
  return detector?.calculate(bytes);
}
