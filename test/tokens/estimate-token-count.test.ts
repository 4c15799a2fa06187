import { readFileSync } from 'node:fs';
import { encode as encodeO200k } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { estimateRequestTokenCount, inlineMediaTokens } from '../../shared/tokens/estimate-token-count.ts';

const corpusDirectory = new URL('../fixtures/token-corpus/', import.meta.url);

function readCorpus(fileName: string): string {
  return readFileSync(new URL(fileName, corpusDirectory), 'utf8');
}

const countOf = (text: string) => estimateRequestTokenCount({ contents: [{ parts: [{ text }] }] });

/**
 * How close the gateway's estimate comes to a real byte-pair tokenizer (o200k_base, gpt-tokenizer 4) on the shipped
 * corpus: the bounds are the measurement rounded outwards, so a change of tokenizer or of the walk shows here.
 */
const expectedRatio: Record<string, [number, number]> = {
  'english-prose.txt': [0.9, 1.15],
  'source-code.ts.txt': [0.9, 1.2],
  'cjk.txt': [0.85, 1.15],
  'json.json': [0.7, 1.0],
  'repeated-tokens.txt': [0.6, 0.85],
  'other-scripts.txt': [0.65, 0.9],
  'emoji.txt': [0.5, 0.75],
};

describe("the gateway's token count estimate", () => {
  it.each(Object.entries(expectedRatio))('%s: within its measured ratio of o200k_base', (fileName, [low, high]) => {
    const text = readCorpus(fileName);
    const ratio = countOf(text) / encodeO200k(text).length;
    expect(ratio).toBeGreaterThanOrEqual(low);
    expect(ratio).toBeLessThanOrEqual(high);
  });

  it('counts inline media as a fixed figure, not by the size of its data, in every wire', () => {
    const data = 'A'.repeat(100_000);
    expect(
      estimateRequestTokenCount({ contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data } }] }] }),
    ).toBe(inlineMediaTokens);
    expect(estimateRequestTokenCount({ source: { type: 'base64', media_type: 'image/png', data } })).toBe(
      inlineMediaTokens,
    );
    expect(estimateRequestTokenCount({ image_url: { url: `data:image/png;base64,${data}` } })).toBe(inlineMediaTokens);
  });

  it('counts tool declarations as their JSON, names the model nowhere, and takes deep nesting in stride', () => {
    const tools = [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object' } }] }];
    expect(estimateRequestTokenCount({ tools })).toBeGreaterThan(5);
    expect(estimateRequestTokenCount({ model: 'a-very-long-model-name-that-costs-nothing' })).toBe(0);
    let nested: unknown = 'leaf';
    for (let depth = 0; depth < 100_000; depth++) nested = [nested];
    expect(estimateRequestTokenCount(nested)).toBe(1);
  });
});
