import { type InlineMedia, inlineMediaOfObject, inlineMediaOfString } from '../wires/input-media.ts';
import { estimateMediaTokens } from './estimate-media-tokens.ts';

/**
 * A conservative estimate of a request's input tokens, for the reservation made at admission (spec §8,
 * accounting rule 1). It runs on the hot path before every dispatch, so it is a single pass over the text with
 * no tokenizer; it must not under-count, because when usage never arrives the reservation is the charge.
 *
 * The rule. Every string and object key in the body is scanned in runs of one character class, as the
 * pre-tokenizers of byte-level BPE vocabularies (o200k_base, cl100k_base) split text, and each run is priced:
 *
 * - ASCII letters: ceil(length / 3), plus one per change of letter case after the second letter (mixed case
 *   defeats merges: random base64 letters come out near 0.66 tokens a letter, prose near 0.25). A run touching a
 *   digit is an identifier or a hash (hex, UUID, base64), where merges are rare: one per letter. A run longer
 *   than any dictionary word is noise or an identifier: at least two tokens per three letters.
 * - ASCII digits: ceil(length / 3) — both vocabularies split numbers into groups of at most three digits.
 * - ASCII punctuation: one per mark, a quarter for a mark that repeats the one before it ("=====" merges well).
 * - Whitespace: a single space before a letter or punctuation is free (it joins the next piece); any other run
 *   costs ceil(length / 4).
 * - Outside ASCII, per character: CJK (Han, kana, Hangul) and two-byte scripts (accented Latin, Greek,
 *   Cyrillic, Hebrew, Arabic) 1.5; other three-byte characters (Indic, Thai, symbols, typographic punctuation,
 *   joiners) 3; four-byte characters (emoji, rare Han) 4. Three and four are their UTF-8 lengths, which no
 *   byte-level vocabulary can exceed.
 * - Structure: one token per string value, key, number, boolean, null, array and object, which covers the
 *   per-message framing tokens that providers add; the keys and the model name are counted as text too.
 * - A request that declares tools gets a fixed allowance for the tool-use instructions that providers add on
 *   their side (Anthropic documents 313–346 tokens for it).
 * - Inline media (a base64 `data:` URL, base64 `data` beside a MIME type) is priced by its kind, not as text:
 *   images by their size in pixels, video by the model's context window where it is stated (see
 *   estimate-media-tokens.ts for the rule and why it bounds what a vendor bills).
 *
 * The margin, measured with gpt-tokenizer 4 (o200k_base and cl100k_base, chat framing included) over
 * test/fixtures/token-corpus, each file wrapped as a chat request: see {@link inputEstimateMargin}. The
 * weights were chosen by that measurement, so test/accounting/estimate-input-tokens.test.ts keeps them honest.
 * Other providers' tokenizers (SentencePiece vocabularies, larger Chinese-heavy vocabularies) are usually as
 * dense or denser; the headroom of at least 1.3× is what covers a provider that is somewhat less efficient. Known
 * thin spots: a paragraph made only of rare Han characters measured 1.14× against cl100k_base, and random hex
 * or printable ASCII about 1.2×. Provider usage replaces the estimate whenever it arrives (rule 3), so the
 * margin matters only for streams that end without usage.
 *
 * Cost: one scan of the text, about 13 ns a character — some 25 ms for a body at the 2 MiB limit.
 */

/** Measured estimate ÷ true token count; each figure is rounded outwards from the measurement. */
export const inputEstimateMargin = {
  /**
   * The lowest ratio over the corpus (CJK text against cl100k_base: 1.37; every other file is above 1.5). An
   * estimate is expected to be at least this multiple of the count of an OpenAI-family tokenizer.
   */
  minimumRatio: 1.3,
  /** The lowest ratio for high-entropy strings (random base64, hex, letters, printable ASCII): 1.18. */
  minimumHighEntropyRatio: 1.1,
  /** The highest ratio over the ASCII files (long repeated tokens against o200k_base: 2.16; prose 1.63). */
  maximumAsciiRatio: 2.2,
  /**
   * The highest ratio over all files: non-Latin alphabets and Indic or Thai text against o200k_base (3.48),
   * where the byte-length price of three-byte characters is far above what that vocabulary needs.
   */
  maximumRatio: 3.6,
} as const;

/** See the module comment: hidden tool-use instructions that the provider bills as input. */
export const toolUseOverheadTokens = 400;

const structuralTokensPerValue = 1;

/** The estimate of a request's input, by the rule in the module comment. */
export interface InputEstimate {
  /** The input tokens to reserve, media included. */
  tokens: number;
  /** The part of `tokens` that prices inline media, which a vendor may shrink: no part of it is surely there. */
  mediaTokens: number;
  /** Whether the request holds a video, whose count only the model's context window bounds. */
  holdsVideo: boolean;
}

/** The input estimate of a parsed request body of any wire, by the rule in the module comment. */
export function estimateInput(body: unknown): InputEstimate {
  let total = 0;
  let mediaTokens = 0;
  let holdsVideo = false;
  const addMedia = (media: InlineMedia) => {
    const estimate = estimateMediaTokens(media.mediaType, media.payload, estimateTextTokens);
    total += estimate.tokens;
    mediaTokens += estimate.tokens;
    holdsVideo ||= estimate.modality === 'video';
  };
  // An explicit stack, not recursion: a deeply nested body must cost tokens, not a stack overflow.
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    total += structuralTokensPerValue;
    if (typeof value === 'string') {
      const media = inlineMediaOfString(value);
      if (media) addMedia(media);
      else total += estimateTextTokens(value);
    } else if (typeof value === 'number') {
      total += estimateTextTokens(String(value));
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      const media = inlineMediaOfObject(value);
      for (const [key, item] of Object.entries(value)) {
        total += structuralTokensPerValue + estimateTextTokens(key);
        if (media && key === 'data') {
          total += structuralTokensPerValue;
          addMedia(media);
        } else {
          pending.push(item);
        }
      }
    }
  }
  return { tokens: declaresTools(body) ? total + toolUseOverheadTokens : total, mediaTokens, holdsVideo };
}

/** The input tokens to reserve for a parsed request body of any wire (`estimateInput`'s `tokens`). */
export function estimateInputTokens(body: unknown): number {
  return estimateInput(body).tokens;
}

/**
 * What admission reserves for the input on a model with this context window (`null`: not stated). No upstream bills
 * more input than its window holds, so the window bounds the estimate; and a request that holds a video is reserved
 * the whole window, as nothing else bounds a video's count (estimate-media-tokens.ts).
 */
export function reservedInputTokens(estimate: InputEstimate, contextWindow: number | null): number {
  if (contextWindow === null) return estimate.tokens;
  return estimate.holdsVideo ? contextWindow : Math.min(estimate.tokens, contextWindow);
}

/**
 * The input tokens a request surely holds at least: its estimate's text divided by the estimate's largest margin.
 * Media count nothing here, since a vendor may shrink an image or sample few frames of a video.
 */
export function surelyHeldInputTokens(estimate: InputEstimate): number {
  return Math.floor((estimate.tokens - estimate.mediaTokens) / inputEstimateMargin.maximumRatio);
}

/** Every wire names its tool list `tools` at the top level (chat, responses, messages, generate-content). */
function declaresTools(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !('tools' in body)) return false;
  const tools: unknown = body.tools;
  return Array.isArray(tools) && tools.length > 0;
}

type CharacterClass = 'letter' | 'digit' | 'whitespace' | 'punctuation' | 'non-ascii';

function classify(code: number): CharacterClass {
  if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return 'letter';
  if (code >= 0x30 && code <= 0x39) return 'digit';
  if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) return 'whitespace';
  if (code < 0x80) return 'punctuation';
  return 'non-ascii';
}

/** Longer than ordinary dictionary words, so a letter run this long is an identifier, a hash or noise. */
const longestWordLength = 24;

/** The estimate for one piece of text, by the rule in the module comment. */
export function estimateTextTokens(text: string): number {
  let total = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    const characterClass = classify(code);
    if (characterClass === 'non-ascii') {
      const codePoint = text.codePointAt(index) ?? code;
      total += nonAsciiWeight(codePoint);
      index += codePoint > 0xffff ? 2 : 1;
      continue;
    }
    let end = index + 1;
    while (end < length && classify(text.charCodeAt(end)) === characterClass) end += 1;
    total += runTokens(text, index, end, characterClass);
    index = end;
  }
  return Math.ceil(total);
}

function runTokens(text: string, start: number, end: number, characterClass: CharacterClass): number {
  const runLength = end - start;
  switch (characterClass) {
    case 'letter':
      return letterRunTokens(text, start, end);
    case 'digit':
      return Math.ceil(runLength / 3);
    case 'punctuation':
      return punctuationRunTokens(text, start, end);
    case 'whitespace': {
      const nextClass = end < text.length ? classify(text.charCodeAt(end)) : undefined;
      const joinsNextPiece =
        runLength === 1 && text.charCodeAt(start) === 0x20 && (nextClass === 'letter' || nextClass === 'punctuation');
      return joinsNextPiece ? 0 : Math.ceil(runLength / 4);
    }
    case 'non-ascii':
      throw new Error('non-ASCII characters are priced one by one, not as runs');
    default: {
      const unknownClass: never = characterClass;
      throw new Error(`no price for character class ${String(unknownClass)}`);
    }
  }
}

function letterRunTokens(text: string, start: number, end: number): number {
  const runLength = end - start;
  const touchesDigit =
    (start > 0 && classify(text.charCodeAt(start - 1)) === 'digit') ||
    (end < text.length && classify(text.charCodeAt(end)) === 'digit');
  if (touchesDigit) return runLength;
  let caseChanges = 0;
  // From the third letter on, so that a capitalised word ("Hello") is not counted as a change.
  for (let position = start + 2; position < end; position += 1) {
    if (isLowercase(text.charCodeAt(position)) !== isLowercase(text.charCodeAt(position - 1))) caseChanges += 1;
  }
  const wordEstimate = Math.ceil(runLength / 3) + caseChanges;
  return runLength > longestWordLength ? Math.max(wordEstimate, Math.ceil((runLength * 2) / 3)) : wordEstimate;
}

/** A repeat of the previous mark merges well ("=====", "..."); a mix ("*~*~", "});") gets about one token a mark. */
function punctuationRunTokens(text: string, start: number, end: number): number {
  let total = 1;
  for (let position = start + 1; position < end; position += 1) {
    total += text.charCodeAt(position) === text.charCodeAt(position - 1) ? 0.25 : 1;
  }
  return Math.ceil(total);
}

function isLowercase(code: number): boolean {
  return code >= 0x61;
}

function nonAsciiWeight(codePoint: number): number {
  if (codePoint > 0xffff) return 4;
  if (isCjk(codePoint)) return 1.5;
  if (codePoint < 0x800) return 1.5;
  return 3;
}

function isCjk(codePoint: number): boolean {
  return (
    (codePoint >= 0x1100 && codePoint <= 0x11ff) || // Hangul Jamo
    (codePoint >= 0x3040 && codePoint <= 0x30ff) || // Hiragana, Katakana
    (codePoint >= 0x3130 && codePoint <= 0x318f) || // Hangul compatibility Jamo
    (codePoint >= 0x3400 && codePoint <= 0x4dbf) || // CJK extension A
    (codePoint >= 0x4e00 && codePoint <= 0x9fff) || // CJK unified ideographs
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) || // Hangul syllables
    (codePoint >= 0xf900 && codePoint <= 0xfaff) // CJK compatibility ideographs
  );
}
