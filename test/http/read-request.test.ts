import { describe, expect, it } from 'vitest';
import type { GatewayRequest } from '../../shared/http/gateway-request.ts';
import { queryCredentialParameter } from '../../shared/http/query-credentials.ts';
import { checkRequestEnvelope, readJsonObject } from '../../shared/http/read-request.ts';
import { matchRoute, routesForPath } from '../../shared/http/route-table.ts';

function request(overrides: Partial<GatewayRequest>): GatewayRequest {
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    query: new URLSearchParams(),
    headers: {},
    body: Buffer.from('{}'),
    requestId: 'r',
    clientSignal: undefined,
    ...overrides,
  };
}

describe('the read stage', () => {
  it('refuses credentials in the query string, WebSocket upgrades and bodies over the limit', () => {
    expect(() => checkRequestEnvelope(request({ query: new URLSearchParams('key=sk-gw-x') }), 100)).toThrow(
      expect.objectContaining({ status: 400, code: 'query_credentials_refused' }),
    );
    expect(() => checkRequestEnvelope(request({ headers: { upgrade: 'websocket' } }), 100)).toThrow(
      expect.objectContaining({ code: 'websocket_refused' }),
    );
    expect(() => checkRequestEnvelope(request({ body: Buffer.alloc(101) }), 100)).toThrow(
      expect.objectContaining({ status: 413, code: 'request_too_large' }),
    );
    expect(() => checkRequestEnvelope(request({ query: new URLSearchParams('alt=sse') }), 100)).not.toThrow();
  });

  it.each([
    'key=x',
    'API-KEY=x',
    'x-goog-api-key=x',
    'Authorization=x',
    'access_token=x',
    'refresh_token=x',
    'client_secret=x',
    'my_api_key=x',
    'X-Amz-Security-Token=x',
    'anything=sk-gw-AAAAAAAAAAAAAAAAAAAA',
    'anything=sk-hold-AAAAAAAAAAAAAAAAAAAA',
    'anything=Bearer%20abc',
    'anything=bearer+abc',
    'anything=AIzaSyA1234567890abcdefghijklmnopqrstu',
    'anything=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
    'sk-gw-AAAAAAAAAAAAAAAAAAAA',
    'note=key%3A%20sk-live-AAAAAAAAAAAA',
  ])('finds the credential in ?%s', (query) => {
    expect(queryCredentialParameter(new URLSearchParams(query))).toBeDefined();
  });

  it.each([
    'alt=sse',
    'period=7d&scope=team&keyId=key_abc&providers=openai,google',
    'memberId=mem_1',
    'max_tokens=10',
    'monkey=banana',
    'task=sk-',
    'desk=skirt',
  ])('lets ?%s through', (query) => {
    expect(queryCredentialParameter(new URLSearchParams(query))).toBeUndefined();
  });

  it('parses JSON objects only, with a code for each way a body can be wrong', () => {
    expect(readJsonObject(request({ body: Buffer.from('{"a":1}') }))).toEqual({ a: 1 });
    for (const [body, code] of [
      ['', 'invalid_json'],
      ['{', 'invalid_json'],
      ['[1]', 'invalid_json'],
      ['null', 'invalid_json'],
    ] as const) {
      expect(() => readJsonObject(request({ body: Buffer.from(body) }))).toThrow(expect.objectContaining({ code }));
    }
    expect(() => readJsonObject(request({ body: Buffer.from([0x7b, 0xff, 0x7d]) }))).toThrow(
      expect.objectContaining({ code: 'invalid_encoding' }),
    );
  });
});

describe('the route table', () => {
  const prefixes = ['lb', 'lb2'];
  it('matches routes directly and under an upstream prefix', () => {
    expect(matchRoute('POST', '/v1/chat/completions', prefixes)?.pathUpstream).toBeUndefined();
    expect(matchRoute('POST', '/lb2/v1/chat/completions', prefixes)).toMatchObject({
      pathUpstream: 'lb2',
      innerPath: '/v1/chat/completions',
    });
    expect(matchRoute('POST', '/nowhere/v1/chat/completions', prefixes)).toBeUndefined();
    expect(matchRoute('POST', '/lb/admin/v1/members', prefixes)).toBeUndefined();
  });

  it("matches Google's methods at the path's end, in both path forms and under a prefix", () => {
    const routeOf = (method: string, path: string) => matchRoute(method, path, prefixes)?.route.id;
    expect(routeOf('POST', '/v1beta/models/google/gemini-2.5-flash:generateContent')).toBe('generate-content-v1beta');
    expect(routeOf('POST', '/v1beta/google/gemini-2.5-flash:streamGenerateContent')).toBe('generate-content-v1beta');
    expect(routeOf('POST', '/v1beta/models/google%2Fgemini-2.5-flash:countTokens')).toBe('gemini-count-tokens-v1beta');
    expect(routeOf('POST', '/lb2/v1beta/lb/google/gemini-2.5-flash:countTokens')).toBe('gemini-count-tokens-v1beta');
    expect(routeOf('GET', '/v1beta/models/ollama/llama3:8b')).toBe('gemini-model');
    expect(routeOf('GET', '/v1beta/models')).toBe('gemini-models');
    expect(routeOf('GET', '/v1/models/openai%2Fgpt-4o')).toBe('model');
    // A method with nothing before it names no model: no route.
    expect(routeOf('POST', '/v1beta/:generateContent')).toBeUndefined();
  });

  it("matches Google's stable /v1 methods like the /v1beta ones, and leaves OpenAI's model reads alone", () => {
    const routeOf = (method: string, path: string) => matchRoute(method, path, prefixes)?.route.id;
    expect(routeOf('POST', '/v1/models/google/gemini-2.5-flash:generateContent')).toBe('generate-content-v1');
    expect(routeOf('POST', '/v1/models/google%2Fgemini-2.5-flash:streamGenerateContent')).toBe('generate-content-v1');
    expect(routeOf('POST', '/v1/google/gemini-2.5-flash:generateContent')).toBe('generate-content-v1');
    expect(routeOf('POST', '/v1/models/ollama/llama3:8b:countTokens')).toBe('gemini-count-tokens-v1');
    expect(matchRoute('POST', '/lb2/v1/models/google/gemini-2.5-flash:countTokens', prefixes)).toMatchObject({
      route: { id: 'gemini-count-tokens-v1' },
      pathUpstream: 'lb2',
      innerPath: '/v1/models/google/gemini-2.5-flash:countTokens',
    });
    // OpenAI's list and read, an id with a colon or an escaped slash included.
    expect(routeOf('GET', '/v1/models')).toBe('models');
    expect(routeOf('GET', '/v1/models/gpt-4o')).toBe('model');
    expect(routeOf('GET', '/v1/models/ollama/llama3:8b')).toBe('model');
    expect(routeOf('GET', '/lb/v1/models/openai%2Fgpt-4o')).toBe('model');
    // A GET of a method's path is the method's 405, as under /v1beta.
    expect(routeOf('GET', '/v1/models/google/gemini-2.5-flash:generateContent')).toBeUndefined();
    expect(routesForPath('/v1/models/google/gemini-2.5-flash:generateContent', prefixes).map(({ id }) => id)).toEqual([
      'generate-content-v1',
    ]);
    expect(routeOf('POST', '/v1/:generateContent')).toBeUndefined();
  });

  it('gives a path to the first route whose pattern covers it, whatever the method, as CloudFront does', () => {
    // A GET of a method's path is that route's 405, not a read of a model named `…:generateContent`.
    expect(matchRoute('GET', '/v1beta/models/google/gemini:generateContent', prefixes)).toBeUndefined();
    expect(routesForPath('/v1beta/models/google/gemini:generateContent', prefixes).map((route) => route.id)).toEqual([
      'generate-content-v1beta',
    ]);
    expect(routesForPath('/lb/v1/chat/completions', prefixes).map((route) => route.method)).toEqual(['POST']);
    expect(routesForPath('/lb/admin/v1/members', prefixes)).toEqual([]);
    expect(
      routesForPath('/admin/v1/members', prefixes)
        .map((route) => route.method)
        .sort(),
    ).toEqual(['GET', 'POST']);
  });
});
