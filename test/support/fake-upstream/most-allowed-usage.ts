import { encode } from 'gpt-tokenizer';
import { imageSize } from 'image-size';
import type { FakeUsage } from './behaviour.ts';
import { isRecord, type JsonRecord } from './json-fields.ts';
import type { FakeWire } from './wire-reply.ts';

/** What a provider produces for a request that states no output cap: the 50,000 tokens and more. */
export const unboundedOutputTokens = 50_000;

/** Fields whose strings are names and switches, not text a provider bills as input. */
const unbilledFields = new Set(['model', 'role', 'type']);

/**
 * The input a provider bills for a request: the o200k_base count of every text in it (messages, system prompt,
 * tool definitions), plus one token of framing per text. A stand-in for the provider's own tokenizer, so a test
 * can hold the gateway's input estimate against it. Inline media are billed as a vision model bills them: an image
 * one token per 28×28 pixels of its size (the alpha family's encoder, 14-pixel patches merged 2×2), anything else
 * (a video, audio, a file) as the o200k_base count of its base64 text, far above any vendor's rate for either.
 */
export function billedInputTokens(request: unknown): number {
  let total = 0;
  const pending: unknown[] = [request];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      const media = dataUrlMedia(value);
      total += (media ? billedMediaTokens(media.mediaType, media.payload) : encode(value).length) + 1;
    } else if (Array.isArray(value)) {
      pending.push(...value);
    } else if (isRecord(value)) {
      const mediaType = value['media_type'] ?? value['mimeType'] ?? value['mime_type'];
      if (typeof value['data'] === 'string' && typeof mediaType === 'string') {
        total += billedMediaTokens(mediaType, value['data']) + 1;
        continue;
      }
      for (const [field, inner] of Object.entries(value)) if (!unbilledFields.has(field)) pending.push(inner);
    }
  }
  return total;
}

function dataUrlMedia(text: string): { mediaType: string; payload: string } | undefined {
  const match = /^data:([^;,]+);base64,/.exec(text.slice(0, 256));
  return match?.[1] ? { mediaType: match[1], payload: text.slice(match[0].length) } : undefined;
}

function billedMediaTokens(mediaType: string, payload: string): number {
  if (mediaType.startsWith('image/')) {
    const { width, height } = imageSize(Buffer.from(payload, 'base64'));
    return Math.ceil(width / 28) * Math.ceil(height / 28);
  }
  return encode(payload).length;
}

/**
 * The most a provider could bill for the request it received: every answer it asks for (`n`, `candidateCount`) as
 * long as its cap allows — or `unboundedOutputTokens` each when it states no cap — and its text as input.
 */
export function mostAllowedUsage(wire: FakeWire, request: JsonRecord): FakeUsage {
  const { perAnswer, answers } = wire.outputLimit(request);
  return {
    inputTokens: billedInputTokens(request),
    cachedInputTokens: 0,
    outputTokens: (perAnswer ?? unboundedOutputTokens) * answers,
  };
}

/** A positive count at `field` of `value`, as providers read one. */
export function countAt(value: unknown, field: string): number | undefined {
  const count = isRecord(value) ? value[field] : undefined;
  return typeof count === 'number' && count > 0 ? count : undefined;
}

/** The larger of the counts a request states, `undefined` when it states none. */
export function largestOf(...counts: (number | undefined)[]): number | undefined {
  const stated = counts.filter((count): count is number => count !== undefined);
  return stated.length > 0 ? Math.max(...stated) : undefined;
}
