import { readFileSync } from 'node:fs';
import { encodeChat as encodeChatO200k, encode as encodeO200k } from 'gpt-tokenizer';
import { encodeChat as encodeChatCl100k, encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import {
  estimateInputTokens,
  estimateTextTokens,
  inputEstimateMargin,
  toolUseOverheadTokens,
} from '../../shared/accounting/estimate-input-tokens.ts';

const corpusDirectory = new URL('../fixtures/token-corpus/', import.meta.url);

const asciiCorpusFiles = ['english-prose.txt', 'source-code.ts.txt', 'json.json', 'repeated-tokens.txt'];
const nonAsciiCorpusFiles = ['cjk.txt', 'emoji.txt', 'other-scripts.txt'];

function readCorpus(fileName: string): string {
  return readFileSync(new URL(fileName, corpusDirectory), 'utf8');
}

const systemPrompt = 'You are a careful assistant. Answer briefly.';

interface Tokenizer {
  name: string;
  countText(text: string): number;
  countChat(messages: { role: 'system' | 'user'; content: string }[]): number;
}

// The o200k_base default and cl100k_base: the latter is far less dense on CJK and other scripts, so it is the
// harder bound for those files.
const tokenizers: Tokenizer[] = [
  {
    name: 'o200k_base',
    countText: (text) => encodeO200k(text).length,
    countChat: (messages) => encodeChatO200k(messages, 'gpt-4o').length,
  },
  {
    name: 'cl100k_base',
    countText: (text) => encodeCl100k(text).length,
    countChat: (messages) => encodeChatCl100k(messages, 'gpt-4').length,
  },
];

function chatBody(text: string) {
  return {
    model: 'alpha/k2.7',
    messages: [
      { role: 'system' as const, content: systemPrompt },
      { role: 'user' as const, content: text },
    ],
  };
}

/** A fixed-seed generator, so the high-entropy strings are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
}

function randomString(alphabet: string, length: number, seed: number): string {
  const random = seededRandom(seed);
  let text = '';
  for (let index = 0; index < length; index += 1) text += alphabet[Math.floor(random() * alphabet.length)];
  return text;
}

const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const printableAscii = Array.from({ length: 94 }, (_, offset) => String.fromCharCode(33 + offset)).join('');
const highEntropyStrings: Record<string, string> = {
  base64: randomString(`${letters}0123456789+/`, 4000, 1),
  hex: randomString('0123456789abcdef', 4000, 2),
  'mixed-case letters': randomString(letters, 4000, 3),
  'lowercase letters': randomString('abcdefghijklmnopqrstuvwxyz', 4000, 4),
  'printable ASCII': randomString(printableAscii, 4000, 5),
};

describe('estimateInputTokens on the corpus, wrapped as a chat request', () => {
  for (const tokenizer of tokenizers) {
    for (const fileName of [...asciiCorpusFiles, ...nonAsciiCorpusFiles]) {
      it(`${fileName}: at least ${inputEstimateMargin.minimumRatio}× the ${tokenizer.name} count`, () => {
        const body = chatBody(readCorpus(fileName));
        const trueCount = tokenizer.countChat(body.messages);
        const estimate = estimateInputTokens(body);

        expect(estimate).toBeGreaterThanOrEqual(trueCount * inputEstimateMargin.minimumRatio);
        expect(estimate).toBeLessThanOrEqual(trueCount * inputEstimateMargin.maximumRatio);
        if (asciiCorpusFiles.includes(fileName)) {
          expect(estimate).toBeLessThanOrEqual(trueCount * inputEstimateMargin.maximumAsciiRatio);
        }
      });
    }

    for (const [kind, text] of Object.entries(highEntropyStrings)) {
      it(`random ${kind}: at least ${inputEstimateMargin.minimumHighEntropyRatio}× the ${tokenizer.name} count`, () => {
        const body = chatBody(text);
        const estimate = estimateInputTokens(body);

        expect(estimate).toBeGreaterThanOrEqual(
          tokenizer.countChat(body.messages) * inputEstimateMargin.minimumHighEntropyRatio,
        );
      });
    }
  }
});

describe('estimateInputTokens on every wire', () => {
  const tools = [
    {
      name: 'get_weather_forecast',
      description: 'Returns the forecast for a location.',
      input_schema: {
        type: 'object',
        properties: { latitude: { type: 'number' }, longitude: { type: 'number' } },
        required: ['latitude', 'longitude'],
      },
    },
  ];

  function wireBodies(text: string): Record<string, unknown> {
    return {
      'openai-responses': { model: 'alpha/k2.7', instructions: systemPrompt, input: text, max_output_tokens: 256 },
      'openai-responses with input items': {
        model: 'alpha/k2.7',
        input: [{ role: 'user', content: [{ type: 'input_text', text }] }],
      },
      'anthropic-messages': {
        model: 'alpha/k2.7',
        max_tokens: 256,
        system: [{ type: 'text', text: systemPrompt }],
        messages: [{ role: 'user', content: [{ type: 'text', text }] }],
      },
      gemini: {
        systemInstruction: { parts: [{ text: systemPrompt }] },
        contents: [{ role: 'user', parts: [{ text }] }],
      },
    };
  }

  for (const tokenizer of tokenizers) {
    for (const fileName of [...asciiCorpusFiles, ...nonAsciiCorpusFiles]) {
      it(`${fileName}: every wire's body is estimated above its ${tokenizer.name} text count`, () => {
        const text = readCorpus(fileName);
        const textCount = tokenizer.countText(systemPrompt) + tokenizer.countText(text);
        for (const body of Object.values(wireBodies(text))) {
          expect(estimateInputTokens(body)).toBeGreaterThanOrEqual(textCount * inputEstimateMargin.minimumRatio);
        }
      });
    }
  }

  it('adds the tool-use allowance on top of the tool definitions themselves', () => {
    const text = readCorpus('english-prose.txt');
    const withoutTools = { model: 'alpha/k2.7', max_tokens: 256, messages: [{ role: 'user', content: text }] };
    const withTools = { ...withoutTools, tools };
    const definitionsCount = encodeCl100k(JSON.stringify(tools)).length;

    expect(estimateInputTokens(withTools) - estimateInputTokens(withoutTools)).toBeGreaterThanOrEqual(
      toolUseOverheadTokens + definitionsCount,
    );
    expect(estimateInputTokens({ ...withoutTools, tools: [] })).toBe(
      estimateInputTokens(withoutTools) + estimateTextTokens('tools') + 2,
    );
  });
});

describe('estimateInputTokens on unusual bodies', () => {
  it('charges for structure, so many short messages still cover the per-message framing', () => {
    const messages = Array.from({ length: 200 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: 'ok',
    }));

    for (const tokenizer of tokenizers) {
      expect(estimateInputTokens({ model: 'alpha/k2.7', messages })).toBeGreaterThanOrEqual(
        tokenizer.countChat(messages.map((message) => ({ role: 'user', content: message.content }))),
      );
    }
  });

  it('walks a deeply nested body without overflowing the stack', () => {
    let nested: unknown = 'leaf';
    for (let depth = 0; depth < 200_000; depth += 1) nested = [nested];

    expect(estimateInputTokens({ messages: nested })).toBeGreaterThan(200_000);
  });

  it('prices values that are not strings and bodies that are not objects', () => {
    expect(estimateInputTokens(undefined)).toBe(1);
    expect(estimateInputTokens(null)).toBe(1);
    expect(estimateInputTokens(true)).toBe(1);
    expect(estimateInputTokens(123456)).toBe(3);
    expect(estimateInputTokens('')).toBe(1);
  });

  it('prices a four-byte character at its UTF-8 length and never splits a surrogate pair', () => {
    expect(estimateTextTokens('🎉')).toBe(4);
    expect(estimateTextTokens('👩‍💻')).toBe(4 + 3 + 4);
  });

  it('scans a body at the 2 MiB limit in well under a second', () => {
    // Guards against an accidental quadratic scan; a measured run takes about 25 ms on one core.
    const text = readCorpus('source-code.ts.txt').repeat(Math.ceil(2_097_152 / 4_149));
    const startedAt = performance.now();
    estimateInputTokens(chatBody(text));

    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});
