import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLegacyLine } from '../../cli/legacy-usage-file.ts';
import { readLegacyUsageRecord } from '../../shared/admin/legacy-usage-record.ts';

/**
 * The CLI checks a file of 0.1 records with the server's own rules (shared/admin/legacy-usage-record.ts), so their
 * verdicts cannot differ. What still needs holding: the rules themselves, the CLI's verdict on each line (plus the
 * one it adds, for text that is not JSON), and that what the CLI sends in place of a line is stored by the server as
 * the same record, under the same id, with nothing left to withhold.
 */

const base = { timestamp: '2025-06-01T09:15:00Z', keyId: 'key_a', provider: 'alpha', model: 'alpha-large' };

const lineCases: readonly (readonly [label: string, line: Record<string, unknown>, problem: RegExp | undefined])[] = [
  ['the least a record needs', base, undefined],
  ['a member instead of a key', { ...base, keyId: undefined, memberId: 'mem_a' }, undefined],
  ['epoch seconds', { ...base, timestamp: 1748770200 }, undefined],
  ['epoch milliseconds', { ...base, timestamp: 1748770200000 }, undefined],
  ['an offset', { ...base, timestamp: '2025-06-01T11:15:00+02:00' }, undefined],
  ['snake_case and OpenAI-style counts', { ...base, prompt_tokens: 3, completion_tokens: 4 }, undefined],
  ['two spellings that agree', { ...base, input_tokens: 3, prompt_tokens: 3 }, undefined],
  ['an outcome word as status', { ...base, status: 'ok' }, undefined],
  ['nulls for what was not reported', { ...base, inputTokens: null, status: null, durationMs: null }, undefined],
  ['bodies, which are removed', { ...base, prompt: 'x', messages: [{ content: 'y' }] }, undefined],
  ['a body-sized prompt, removed before the size check', { ...base, prompt: 'x'.repeat(100_000) }, undefined],
  ['no timestamp', { ...base, timestamp: undefined }, /^timestamp: required$/],
  ['a date-time without a zone', { ...base, timestamp: '2025-06-01T09:15:00' }, /^timestamp: expected an ISO/],
  ['an impossible date', { ...base, timestamp: '2025-02-30T00:00:00Z' }, /^timestamp: expected an ISO/],
  ['a time before 2000', { ...base, ts: 5, timestamp: undefined }, /^ts: not a time between 2000 and 2100$/],
  ['no provider', { ...base, provider: undefined }, /^provider: required$/],
  ['an empty model', { ...base, model: ' ' }, /^model: /],
  ['no key and no member', { ...base, keyId: undefined }, /needs keyId or memberId/],
  ['only a bare "key", which may be a secret', { ...base, keyId: undefined, key: 'sk-1' }, /needs keyId or memberId/],
  ['negative tokens', { ...base, output_tokens: -1 }, /^output_tokens: /],
  ['fractional tokens', { ...base, inputTokens: 1.5 }, /^inputTokens: /],
  ['tokens as text', { ...base, inputTokens: '12' }, /^inputTokens: /],
  ['an HTTP status out of range', { ...base, status: 99 }, /^status: expected an HTTP status/],
  ['two spellings that disagree', { ...base, input_tokens: 3, prompt_tokens: 4 }, /^input_tokens and prompt_tokens/],
  ['a field no allowlist names, however large, withheld', { ...base, notes: 'x'.repeat(40_000) }, undefined],
  [
    'the key itself as keyId, withheld as a credential',
    { ...base, keyId: 'sk-gw-AAAAAAAAAAAAAAAAAAAA' },
    /needs keyId/,
  ],
];

function verdictOfCli(line: string): string | undefined {
  const checked = checkLegacyLine(line);
  return checked.ok ? undefined : checked.problem;
}

describe('reading a 0.1 record', () => {
  it.each(lineCases)('%s', (_label, line, problem) => {
    const verdict = verdictOfCli(JSON.stringify(line));
    if (problem) expect(verdict).toMatch(problem);
    else expect(verdict).toBeUndefined();
  });

  it('refuses what is not a JSON object, and says when a line is not JSON at all', () => {
    for (const text of ['[1]', 'null', '"text"', '42']) {
      expect(readLegacyUsageRecord(JSON.parse(text))).toEqual({ ok: false, problem: 'expected a JSON object' });
      expect(verdictOfCli(text)).toBe('expected a JSON object');
    }
    expect(verdictOfCli('{"timestamp":')).toBe('not valid JSON');
  });

  it('stores the known fields under one spelling, in UTC, with the rest as JSON text', () => {
    const reading = readLegacyUsageRecord({
      ts: 1748770200,
      member_id: 'mem_b',
      provider: 'beta',
      model: 'beta-4-31b',
      status: 'ok',
      prompt_tokens: 80,
      completion_tokens: 12,
      total_tokens: 92,
      prompt: 'what is the capital of France',
      meta: { node: 'w-3', messages: ['hi'] },
    });
    expect(reading).toEqual({
      ok: true,
      record: {
        id: expect.stringMatching(/^leg_[A-Za-z0-9_-]{43}$/),
        generation: '0.1',
        timestamp: '2025-06-01T09:30:00.000Z',
        day: '2025-06-01',
        requestId: null,
        keyId: null,
        memberId: 'mem_b',
        provider: 'beta',
        model: 'beta-4-31b',
        status: 'ok',
        inputTokens: 80,
        cachedInputTokens: null,
        outputTokens: 12,
        durationMs: null,
        raw: JSON.stringify({ total_tokens: 92, meta: { node: 'w-3' } }),
      },
      cleaned: {
        ts: 1748770200,
        member_id: 'mem_b',
        provider: 'beta',
        model: 'beta-4-31b',
        status: 'ok',
        prompt_tokens: 80,
        completion_tokens: 12,
        total_tokens: 92,
        meta: { node: 'w-3' },
      },
      withheld: ['meta.messages', 'prompt'],
    });
  });

  it('keeps only allowlisted extras, in their shapes: bodies under any name are withheld', () => {
    const reading = readLegacyUsageRecord({
      ...base,
      user_input: 'LEGACY-PROMPT-CANARY what is the capital of France',
      payload: { msg: 'LEGACY-PROMPT-CANARY hello' },
      turns: [{ said: 'LEGACY-PROMPT-CANARY hi' }, { said: 'LEGACY-ANSWER-CANARY hello' }],
      generation: 'LEGACY-ANSWER-CANARY Paris',
      total_tokens: 12,
      region: 'eu-west-1',
      tags: ['batch', 'nightly'],
      engine: { version: '0.1.7', node: 'worker-3', response_text: 'LEGACY-ANSWER-CANARY hi' },
      stream: 'yes',
    });
    if (!reading.ok) throw new Error(reading.problem);
    expect(JSON.parse(reading.record.raw)).toEqual({
      total_tokens: 12,
      region: 'eu-west-1',
      tags: ['batch', 'nightly'],
      engine: { version: '0.1.7', node: 'worker-3' },
    });
    expect(JSON.stringify(reading.cleaned)).not.toContain('CANARY');
    expect(reading.withheld).toEqual([
      'engine.response_text',
      'generation',
      'payload',
      'stream',
      'turns',
      'user_input',
    ]);
  });

  it.each([
    ['sk-live-abcdefghijklmnop', 'an sk- key'],
    ['Bearer abc.def', 'a bearer token'],
    ['token: Bearer abc', 'a bearer token inside text'],
    ['Kq3xZ8v1LmN0pR7sT2uW9yB4cD6eF5gH1iJ3kL8mN2o', 'a long random token'],
    ['AIzaSyA1234567890abcdefghijklmnopqrstu', 'a Google API key'],
  ])('withholds %s (%s) at any depth, in allowlisted and known fields alike', (secret) => {
    const reading = readLegacyUsageRecord({
      ...base,
      memberId: 'mem_a',
      note: secret,
      region: secret,
      tags: ['kept', secret],
      engine: { version: '0.1.7', node: secret },
      requestId: secret,
      keyId: `${secret}`,
    });
    if (!reading.ok) throw new Error(reading.problem);
    expect(JSON.stringify(reading.record)).not.toContain(secret);
    expect(JSON.stringify(reading.cleaned)).not.toContain(secret);
    expect(JSON.parse(reading.record.raw)).toEqual({ tags: ['kept'], engine: { version: '0.1.7' } });
    expect(reading.record).toMatchObject({ keyId: null, requestId: null, memberId: 'mem_a' });
    expect(reading.withheld).toEqual(['engine.node', 'keyId', 'note', 'region', 'requestId', 'tags[]']);
  });

  it('leaves ids, model names and hashes alone', () => {
    const line = {
      ...base,
      requestId: '27745e70-ac7e-443f-8a51-6e49b9726a86',
      model: 'Mixtral-8x22B-Instruct-v0-1-FP8-Dyn',
      engine: { version: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
    };
    expect(readLegacyUsageRecord(line)).toMatchObject({ ok: true, withheld: [] });
  });
});

// Names a 0.1 line may carry: the known spellings, bodies, credentials and harmless extras.
const fieldNames = [
  'timestamp',
  'ts',
  'time',
  'keyId',
  'key_id',
  'memberId',
  'member_id',
  'provider',
  'model',
  'status',
  'inputTokens',
  'input_tokens',
  'prompt_tokens',
  'outputTokens',
  'completion_tokens',
  'cachedInputTokens',
  'durationMs',
  'requestId',
  'prompt',
  'messages',
  'content',
  'api_key',
  'key',
  'region',
  'total_tokens',
  'meta',
] as const;

const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('2025-06-01T09:15:00Z', '2025-06-01T09:15:00', 'alpha', '', ' ', 'ok', '12'),
  fc.constantFrom(0, 1, 99, 200, 599, 1.5, -1, 1748770200, 1748770200000, 1e20),
  fc.constant(null),
  fc.record({ node: fc.string(), messages: fc.array(fc.string(), { maxLength: 2 }) }),
);

// Mostly well-formed records with a few fields added or overridden at random, so both verdicts occur often.
const generatedLine = fc
  .tuple(
    fc.record(
      {
        timestamp: fc.constantFrom('2025-06-01T09:15:00Z', 1748770200, 1748770200000),
        keyId: fc.constant('key_a'),
        memberId: fc.constant('mem_a'),
        provider: fc.constant('alpha'),
        model: fc.constant('alpha-large'),
      },
      { requiredKeys: ['provider'] },
    ),
    fc.dictionary(fc.constantFrom(...fieldNames), fieldValue, { maxKeys: 5 }),
  )
  .map(([known, extra]) => ({ ...known, ...extra }));

describe('the CLI and the server agree', () => {
  it('on every line of a generated corpus: the CLI sends what the server would store anyway', () => {
    fc.assert(
      fc.property(generatedLine, (line) => {
        const text = JSON.stringify(line);
        const server = readLegacyUsageRecord(JSON.parse(text));
        const cli = checkLegacyLine(text);
        if (!cli.ok || !server.ok) {
          expect(cli).toEqual({ ok: false, problem: server.ok ? undefined : server.problem });
          return;
        }
        // What the CLI sends carries no withheld field, and is stored as the same record under the same id.
        const sent = readLegacyUsageRecord(JSON.parse(JSON.stringify(cli.record)));
        expect(sent).toEqual({ ok: true, record: server.record, cleaned: cli.record, withheld: [] });
      }),
      { numRuns: 2000 },
    );
  });
});
