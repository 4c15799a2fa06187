import { estimateTokenCount } from 'tokenx';
import { inlineMediaOfObject, inlineMediaOfString } from '../wires/input-media.ts';

/**
 * What one inline media part (an image, audio or a document sent as base64 data) counts: its size says little
 * about its tokens, so it gets the figure Gemini documents for an image of up to 384×384 pixels.
 * https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens
 */
export const inlineMediaTokens = 258;

/**
 * The gateway's own count of a request's input tokens, for a token count whose connection cannot count (no count
 * endpoint in its format). It is an estimate, and the answer says so (token-count-source.ts):
 *
 * - Text is counted by tokenx, a 9 KB heuristic that prices each word, number, punctuation run and script the way
 *   byte-pair vocabularies split them: within a few percent of OpenAI's o200k_base on English prose and source code,
 *   and about 0.6–0.85× on emoji, JSON and non-Latin scripts (test/tokens/estimate-token-count.test.ts measures it).
 *   A real vocabulary (o200k_base, 2.4 MB; cl100k_base, 1.2 MB) would not fit the 400 KB Lambda bundle, and would
 *   still not be the count of the connection's model, whose tokenizer the gateway does not know.
 * - Every string value of the body is text (the keys of the wire's structure are not, except in tool
 *   declarations, which are counted as their JSON, schemas included, as providers render them to the model).
 * - Inline media (base64 data beside a mime type, or a `data:` URL) counts {@link inlineMediaTokens} each; `model`
 *   names the model and counts nothing.
 */
export function estimateRequestTokenCount(body: unknown): number {
  let total = 0;
  // An explicit stack, not recursion: a deeply nested body must cost tokens, not a stack overflow.
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      total += inlineMediaOfString(value) ? inlineMediaTokens : estimateTokenCount(value);
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      total += 1;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      if (inlineMediaOfObject(value)) {
        total += inlineMediaTokens;
        continue;
      }
      for (const [key, item] of Object.entries(value)) {
        if (key === 'model') continue;
        if (key === 'tools') total += estimateTokenCount(JSON.stringify(item));
        else pending.push(item);
      }
    }
  }
  return total;
}
