import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens, inputEstimateMargin } from '../../shared/accounting/estimate-input-tokens.ts';
import { catalogModels } from '../../shared/catalog/catalog-data.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * Spec §2.2 and §8 limits at their exact edges: each catalog model's context window, Beta 4 31B's maximum
 * output, and the 2,097,152-byte request body.
 *
 * How the gateway holds a request against a window: it cannot count tokens exactly before dispatch, so it
 * refuses only what surely cannot fit, the lowest true input count its estimate allows (the estimate divided by
 * its highest measured over-count, `inputEstimateMargin.maximumRatio`) plus the requested output. So
 * `max_tokens` equal to the window is refused whenever the prompt has any tokens at all; the edge is
 * `window - lowerBound(input)`, which the tests compute from the very body they send.
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'alpha', wire: 'openai-chat', path: '/chat-route/v1', upstream: 'alpha' },
    { provider: 'alpha', wire: 'anthropic-messages', path: '/messages-route/v1', upstream: 'alpha' },
    ...['beta', 'gamma'].map((provider) => ({ provider, wire: 'openai-chat' as const, upstream: provider })),
    { provider: 'openai', wire: 'openai-chat', models: ['plain-model'] },
  ],
  // No daily allowance: reservations near a million tokens are the point here, not the allowance.
  member: {},
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  ({ key } = fixture.member);
});

function post(body: string | Record<string, unknown>) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function errorCode(response: Response): Promise<string | undefined> {
  return ((await response.json()) as { error?: { code?: string } }).error?.code;
}

/** The fewest tokens the gateway is sure a body's input has. */
const inputLowerBound = (body: Record<string, unknown>) =>
  Math.floor(estimateInputTokens(body) / inputEstimateMargin.maximumRatio);
const surelyNeeds = (body: Record<string, unknown>) => inputLowerBound(body) + (body.max_tokens as number);

/** The largest value for which `fits(value)` holds, given that it holds at `low` and not at `high`. */
function largestFitting(low: number, high: number, fits: (value: number) => boolean): number {
  expect(fits(low)).toBe(true);
  expect(fits(high)).toBe(false);
  let [yes, no] = [low, high];
  while (no - yes > 1) {
    const middle = Math.floor((yes + no) / 2);
    if (fits(middle)) yes = middle;
    else no = middle;
  }
  return yes;
}

/** Punctuation that never repeats the mark before it: the estimate prices it at one token a character. */
const punctuation = (length: number) => '!#'.repeat(Math.ceil(length / 2)).slice(0, length);

/** Spec §2.2, written out here so the tests hold the catalog to the spec rather than to itself. */
const specWindows = [
  { publicId: 'alpha/alpha-k3', alias: 'alpha-k3', window: 1_048_576, maxOutput: null },
  { publicId: 'alpha/alpha-k3-256k', alias: 'alpha-k3-256k', window: 262_144, maxOutput: null },
  { publicId: 'alpha/alpha-k2.7-code', alias: 'alpha-k2.7-code', window: 262_144, maxOutput: null },
  {
    publicId: 'alpha/alpha-k2.7-code-highspeed',
    alias: 'alpha-k2.7-code-highspeed',
    window: 262_144,
    maxOutput: null,
  },
  { publicId: 'beta/beta-4-31b', alias: 'beta-4-31b', window: 131_000, maxOutput: 32_768 },
] as const;
type SpecWindow = (typeof specWindows)[number];

/**
 * Two bodies either side of a model's window: `fits` needs exactly the window, `over` one token more. A model
 * whose maximum output is below its window (Beta 4 31B) reaches the window with input; the others with output.
 */
function bodiesAtTheWindow(model: SpecWindow): { fits: Record<string, unknown>; over: Record<string, unknown> } {
  const { window } = model;
  const withOutput = (maxTokens: number, prompt = 'hi') => ({
    model: model.alias,
    messages: [{ role: 'user', content: prompt }],
    max_tokens: maxTokens,
  });
  if (model.maxOutput === null) {
    const fitting = largestFitting(1, window, (maxTokens) => surelyNeeds(withOutput(maxTokens)) <= window);
    // A tiny prompt: the request's output alone comes within a few tokens of the window.
    expect(fitting).toBeGreaterThan(window - 20);
    return { fits: withOutput(fitting), over: withOutput(fitting + 1) };
  }
  const output = model.maxOutput;
  const promptFits = (length: number) => surelyNeeds(withOutput(output, punctuation(length))) <= window;
  const fitting = largestFitting(0, 2 * Math.ceil(window * inputEstimateMargin.maximumRatio), promptFits);
  return { fits: withOutput(output, punctuation(fitting)), over: withOutput(output, punctuation(fitting + 1)) };
}

describe('context windows of the catalog (spec §2.2)', () => {
  it('states exactly the windows and output maximums of the spec', () => {
    const windowed = catalogModels.filter((model) => model.contextWindow !== null);
    expect(windowed.map(({ publicId, contextWindow, maxOutput }) => ({ publicId, contextWindow, maxOutput }))).toEqual(
      specWindows.map(({ publicId, window, maxOutput }) => ({ publicId, contextWindow: window, maxOutput })),
    );
  });

  for (const model of specWindows) {
    it(`${model.publicId}: a request that needs exactly ${model.window} tokens goes upstream; one more is refused`, async () => {
      const { fits, over } = bodiesAtTheWindow(model);
      expect(surelyNeeds(fits)).toBe(model.window);
      expect(surelyNeeds(over)).toBeGreaterThan(model.window);

      const accepted = await post(fits);
      expect(accepted.status).toBe(200);
      expect(upstream.requests).toHaveLength(1);

      const refused = await post(over);
      expect(refused.status).toBe(400);
      expect(await errorCode(refused)).toBe('context_window_exceeded');
      expect(upstream.requests).toHaveLength(1);
    });
  }

  it('refuses max_tokens equal to the window: any prompt at all needs more', async () => {
    const response = await post({
      model: 'alpha-k3-256k',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 262_144,
    });
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe('context_window_exceeded');
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses, on the input side alone, a prompt that surely overflows Beta 4 31B (no max_tokens)', async () => {
    const body = { model: 'beta-4-31b', messages: [{ role: 'user', content: punctuation(480_000) }] };
    expect(inputLowerBound(body)).toBeGreaterThan(131_000);
    expect(JSON.stringify(body).length).toBeLessThan(2_097_152);
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe('context_window_exceeded');
    expect(upstream.requests).toHaveLength(0);
  });

  it('never holds a model without a window (Gamma, connection-declared models) to one', async () => {
    const body = { model: 'gamma', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5_000_000 };
    expect((await post(body)).status).toBe(200);
    expect((await post({ ...body, model: 'plain-model' })).status).toBe(200);
  });
});

describe('Beta 4 31B maximum output (spec §8)', () => {
  it('accepts max_tokens 32,768 and refuses 32,769 with 400 max_output_exceeded', async () => {
    const client = openaiClient(gateway, key);
    const question = [{ role: 'user' as const, content: 'hi' }];
    await expect(
      client.chat.completions.create({ model: 'beta-4-31b', messages: question, max_tokens: 32_768 }),
    ).resolves.toBeDefined();
    expect(upstream.requests[0]?.json).toMatchObject({ model: 'beta-4-31b', max_tokens: 32_768 });
    const error = await client.chat.completions
      .create({ model: 'beta-4-31b', messages: question, max_tokens: 32_769 })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'max_output_exceeded' });
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('request body limit (spec §8: 2,097,152 bytes)', () => {
  /** A chat body of exactly `bytes` bytes (ASCII, so characters are bytes). */
  function chatBodyOfSize(bytes: number): string {
    const frame = (content: string) =>
      JSON.stringify({ model: 'openai/plain-model', messages: [{ role: 'user', content }] });
    const body = frame('x'.repeat(bytes - frame('').length));
    expect(Buffer.byteLength(body)).toBe(bytes);
    return body;
  }

  it('reads a body of exactly 2,097,152 bytes', async () => {
    const response = await post(chatBodyOfSize(2_097_152));
    expect(response.status).not.toBe(413);
    expect(response.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it('refuses 2,097,153 bytes with 413 request_too_large, without calling the upstream', async () => {
    const response = await post(chatBodyOfSize(2_097_153));
    expect(response.status).toBe(413);
    expect(await errorCode(response)).toBe('request_too_large');
    expect(upstream.requests).toHaveLength(0);
  });
});
