import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/gateway-error.ts';
import { parseGenerateContentPath, streamResponseFormat } from '../../../shared/wires/gemini/generate-content-path.ts';

const parse = (innerPath: string) => parseGenerateContentPath({ innerPath, query: new URLSearchParams() });

function refusalOf(innerPath: string): { status: number; code: string } {
  try {
    parse(innerPath);
  } catch (error) {
    if (error instanceof GatewayError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error(`${innerPath} was accepted`);
}

describe('the generate-content path', () => {
  it('reads a provider/model id whose slash is raw or percent-encoded', () => {
    const expected = { model: 'google/gemini-test', method: 'generateContent' };
    expect(parse('/v1beta/models/google/gemini-test:generateContent')).toEqual(expected);
    expect(parse('/v1beta/models/google%2Fgemini-test:generateContent')).toEqual(expected);
    expect(parse('/v1beta/models/google%2fgemini-test:generateContent')).toEqual(expected);
  });

  it('takes the method after the last colon, so model names may hold colons', () => {
    expect(parse('/v1beta/models/ollama/llama3:8b:streamGenerateContent')).toEqual({
      model: 'ollama/llama3:8b',
      method: 'streamGenerateContent',
    });
    expect(parse('/v1beta/models/lb/gemini-test%3Aexp:generateContent')).toEqual({
      model: 'lb/gemini-test:exp',
      method: 'generateContent',
    });
  });

  it('reads the form @ai-sdk/google sends for an id with a slash, without `models/`, and the count method', () => {
    expect(parse('/v1beta/google/gemini-test:generateContent')).toEqual({
      model: 'google/gemini-test',
      method: 'generateContent',
    });
    expect(parse('/v1beta/lb2/google/gemini-test:streamGenerateContent')).toEqual({
      model: 'lb2/google/gemini-test',
      method: 'streamGenerateContent',
    });
    expect(parse('/v1beta/models/gemini-test:countTokens')).toEqual({ model: 'gemini-test', method: 'countTokens' });
  });

  it("reads a model's name as the list gives it, models/<provider/model>, after the collection too", () => {
    const expected = { model: 'google/gemini-test', method: 'generateContent' };
    expect(parse('/v1beta/models/models/google/gemini-test:generateContent')).toEqual(expected);
    expect(parse('/v1beta/models/models%2Fgoogle%2Fgemini-test:generateContent')).toEqual(expected);
  });

  it("reads the stable API's /v1 paths as the /v1beta ones, in both forms and with colons in the id", () => {
    expect(parse('/v1/models/google/gemini-test:generateContent')).toEqual({
      model: 'google/gemini-test',
      method: 'generateContent',
    });
    expect(parse('/v1/models/google%2Fgemini-test:streamGenerateContent')).toEqual({
      model: 'google/gemini-test',
      method: 'streamGenerateContent',
    });
    expect(parse('/v1/models/ollama/llama3:8b:countTokens')).toEqual({
      model: 'ollama/llama3:8b',
      method: 'countTokens',
    });
    expect(parse('/v1/lb2/google/gemini-test%3Aexp:generateContent')).toEqual({
      model: 'lb2/google/gemini-test:exp',
      method: 'generateContent',
    });
    expect(refusalOf('/v1/models/google/gemini-test:embedContent')).toEqual({ status: 404, code: 'unknown_route' });
    expect(refusalOf('/v2/models/google/gemini-test:generateContent')).toEqual({ status: 404, code: 'unknown_route' });
  });

  it('frames a stream as server-sent events with alt=sse, else as one JSON array; other alt values are refused', () => {
    const format = (query: string) =>
      streamResponseFormat({ innerPath: '/v1beta/m:x', query: new URLSearchParams(query) });
    expect(format('alt=sse')).toBe('sse');
    expect(format('')).toBe('json-array');
    expect(format('alt=json')).toBe('json-array');
    expect(() => format('alt=proto')).toThrow(expect.objectContaining({ status: 400, code: 'invalid_query' }));
  });

  it('answers 404 for a method the gateway does not serve and 400 for a path without a model', () => {
    expect(refusalOf('/v1beta/models/google/gemini-test:embedContent')).toEqual({ status: 404, code: 'unknown_route' });
    expect(refusalOf('/v1beta/models/google/gemini-test')).toEqual({ status: 404, code: 'unknown_route' });
    expect(refusalOf('/v1beta/models/:generateContent')).toEqual({ status: 400, code: 'invalid_model_path' });
    expect(refusalOf('/v1beta/models/google%2:generateContent')).toEqual({ status: 400, code: 'invalid_model_path' });
  });
});
