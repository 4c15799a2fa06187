import { describe, expect, it } from 'vitest';
import { bedrockConverseUpstreamWire } from '../../../shared/wires/bedrock-converse/bedrock-converse-upstream-wire.ts';
import { readJsonFixture, readStreamUsage } from '../../support/sse-fixtures.ts';

const fixtures = 'translation/chat-to-converse';
const wire = bedrockConverseUpstreamWire;

describe('Converse usage', () => {
  it("reads a whole answer's usage: input without cache counts is the whole input", async () => {
    expect(wire.usageOfAnswer(await readJsonFixture(fixtures, 'answer-tool-use.json'))).toEqual({
      inputTokens: 375,
      cachedInputTokens: null,
      outputTokens: 66,
    });
  });

  it('adds cache reads and writes back into input, and reports the reads as the cached part', async () => {
    // inputTokens 12 + cache reads 2,800 + cache writes 200.
    expect(wire.usageOfAnswer(await readJsonFixture(fixtures, 'answer-reasoning-cached.json'))).toEqual({
      inputTokens: 3012,
      cachedInputTokens: 2800,
      outputTokens: 40,
    });
  });

  it("reads a stream's usage from its metadata event", async () => {
    const usage = await readStreamUsage(
      fixtures,
      'reasoning-text-tool-stream.sse',
      wire.parseEvent,
      wire.createUsageReader,
    );
    expect(usage).toEqual({ inputTokens: 412 + 1024, cachedInputTokens: 1024, outputTokens: 96 });
    const union = await readStreamUsage(fixtures, 'text-length-stream.sse', wire.parseEvent, wire.createUsageReader);
    expect(union).toEqual({ inputTokens: 18, cachedInputTokens: null, outputTokens: 5 });
  });

  it('a stream that broke off before its metadata reported nothing', async () => {
    const usage = await readStreamUsage(fixtures, 'exception-mid-stream.sse', wire.parseEvent, wire.createUsageReader);
    expect(usage).toBeUndefined();
  });

  it("names a count that cannot be charged in Converse's own fields", () => {
    expect(wire.usageOfAnswer({ usage: { inputTokens: -4, outputTokens: 10, cacheReadInputTokens: 20 } })).toEqual({
      inputTokens: 16,
      cachedInputTokens: 20,
      outputTokens: 10,
      problem: 'inputTokens is -4, not a count of tokens',
    });
  });

  it('an answer without usage, or with unreadable usage, reports none', () => {
    expect(wire.usageOfAnswer({ output: { message: { content: [] } } })).toBeUndefined();
    expect(wire.usageOfAnswer({ usage: 'lots' })).toBeUndefined();
    expect(wire.usageOfAnswer({ usage: { outputTokens: 3 } })).toEqual({
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: 3,
    });
  });
});
