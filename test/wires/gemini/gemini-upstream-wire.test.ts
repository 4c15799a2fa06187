import { describe, expect, it } from 'vitest';
import { parseGeminiError } from '../../../shared/wires/gemini/gemini-upstream-error.ts';
import {
  buildGeminiCountTokensUrl,
  buildGeminiGenerateContentUrl,
  geminiUpstreamWire,
} from '../../../shared/wires/gemini/gemini-upstream-wire.ts';
import type { BuildUpstreamRequestInput } from '../../../shared/wires/upstream-wire-format.ts';
import { parseSseText, readTextFixture } from '../../support/sse-fixtures.ts';

const baseUrl = 'https://generativelanguage.googleapis.com/v1beta';
const credential = 'AIzaSy-provider-secret';

function clientBody(): Record<string, unknown> {
  return {
    contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    generationConfig: { maxOutputTokens: 256, thinkingConfig: { thinkingBudget: 128, includeThoughts: true } },
    safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
    aFieldTheGatewayDoesNotKnow: { nested: [1, 2, 3] },
  };
}

function build(overrides: Partial<BuildUpstreamRequestInput> = {}) {
  return geminiUpstreamWire.buildUpstreamRequest({
    target: { baseUrl, credential },
    body: clientBody(),
    upstreamModel: 'gemini-2.5-flash',
    stream: false,
    operation: 'generate',
    ...overrides,
  });
}

describe('geminiUpstreamWire.buildUpstreamRequest', () => {
  it('puts the model in the path, and asks for SSE when streaming', () => {
    expect(geminiUpstreamWire.wire).toBe('gemini');
    expect(build().url).toBe(`${baseUrl}/models/gemini-2.5-flash:generateContent`);
    expect(build({ stream: true }).url).toBe(`${baseUrl}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`);
    expect(build({ operation: 'count-tokens', stream: true }).url).toBe(
      `${baseUrl}/models/gemini-2.5-flash:countTokens`,
    );
  });

  it('builds the URLs on their own, without doubling a models/ prefix or a trailing slash', () => {
    expect(buildGeminiGenerateContentUrl(`${baseUrl}/`, 'models/gemini-2.0-flash', true)).toBe(
      `${baseUrl}/models/gemini-2.0-flash:streamGenerateContent?alt=sse`,
    );
    expect(buildGeminiCountTokensUrl(baseUrl, 'gemini-2.0-flash')).toBe(
      `${baseUrl}/models/gemini-2.0-flash:countTokens`,
    );
    expect(buildGeminiGenerateContentUrl(baseUrl, 'odd/name?key=x', false)).toBe(
      `${baseUrl}/models/odd%2Fname%3Fkey%3Dx:generateContent`,
    );
  });

  it('sends the provider credential in x-goog-api-key, and nothing else', () => {
    const { url, headers, body } = build();
    expect(headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': credential });
    expect(url).not.toContain(credential);
    expect(body).not.toContain(credential);
  });

  it('passes the body through untouched, without a model field', () => {
    expect(JSON.parse(build().body)).toEqual(clientBody());
    const withModel = { ...clientBody(), model: 'beta/beta-4-31b' };
    expect(JSON.parse(build({ body: withModel, stream: true }).body)).toEqual(clientBody());
    expect(withModel.model).toBe('beta/beta-4-31b');
  });
});

describe('geminiUpstreamWire.buildUpstreamRequest for a token count', () => {
  it('rewrites the model that a wrapped generateContentRequest must name, and keeps the rest', () => {
    const body = {
      generateContentRequest: {
        model: 'models/gemini/gemini-2.5-flash',
        contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
      },
    };
    const sent = JSON.parse(build({ operation: 'count-tokens', body }).body);
    expect(sent).toEqual({
      generateContentRequest: { ...body.generateContentRequest, model: 'models/gemini-2.5-flash' },
    });
    expect(body.generateContentRequest.model).toBe('models/gemini/gemini-2.5-flash');
  });

  it('sends plain contents untouched', () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };
    expect(JSON.parse(build({ operation: 'count-tokens', body }).body)).toEqual(body);
  });
});

describe('parseGeminiError', () => {
  it('reads an error response body', async () => {
    expect(parseGeminiError(await readTextFixture('wires/gemini', 'error.json'))).toEqual({
      message: 'API key not valid. Please pass a valid API key.',
      type: 'INVALID_ARGUMENT',
      code: 400,
    });
  });

  it('reads the array form of an error body', async () => {
    expect(parseGeminiError(await readTextFixture('wires/gemini', 'error-array.json'))).toEqual({
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'RESOURCE_EXHAUSTED',
      code: 429,
    });
  });

  it('reads the chunk that ends a stream failing midway', async () => {
    const events = parseSseText(await readTextFixture('wires/gemini', 'interrupted-stream.sse'));
    expect(parseGeminiError(events.at(-1)?.data ?? '')).toEqual({
      message: 'The model is overloaded. Please try again later.',
      type: 'UNAVAILABLE',
      code: 503,
    });
  });

  it('gives up on anything else', () => {
    expect(parseGeminiError('<html>502</html>')).toBeUndefined();
    expect(parseGeminiError('{"candidates":[]}')).toBeUndefined();
    expect(parseGeminiError('{"error":{}}')).toBeUndefined();
  });
});
