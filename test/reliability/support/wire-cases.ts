import fc from 'fast-check';
import type { RouteDefinition } from '../../../shared/http/route-table.ts';
import type { ClientWire } from '../../../shared/wires/wire-names.ts';
import type { AdminClient } from '../../support/test-gateway.ts';

type JsonObject = Record<string, unknown>;

/** Wires a client POSTs a JSON body to; the model lists are GETs without a body. */
export type BodyWire = Exclude<ClientWire, 'models' | 'gemini-models'>;

/**
 * What the fuzzer needs of one wire: the connection that serves it on the fake upstream, where a request goes,
 * and a valid body. Keyed by every body wire, so a wire added to `ClientWire` does not compile until it is
 * described here — and then the fuzzer covers every route of the route table that speaks it.
 */
export interface WireCase {
  connection: Parameters<AdminClient['createConnection']>[0];
  /** The path of a request on this route; generate-content names the model (and streaming) in the path. */
  path(route: RouteDefinition, model: string, stream: boolean): string;
  /** The gateway's name for the model the connection serves. */
  model: string;
  validBody(model: string, text: string, stream: boolean, maxTokens: number): JsonObject;
}

const bodyPath = (route: RouteDefinition) => route.path;

export function wireCases(upstreamUrl: string): Record<BodyWire, WireCase> {
  return {
    'openai-chat': {
      connection: { provider: 'openai', wire: 'openai-chat', baseUrl: `${upstreamUrl}/v1`, models: ['fuzz-chat'] },
      path: bodyPath,
      model: 'openai/fuzz-chat',
      validBody: (model, text, stream, maxTokens) => ({
        model,
        messages: [
          { role: 'system', content: 'fuzz' },
          { role: 'user', content: text },
        ],
        max_tokens: maxTokens,
        ...(stream ? { stream: true } : {}),
      }),
    },
    'openai-responses': {
      connection: {
        provider: 'openai',
        wire: 'openai-responses',
        baseUrl: `${upstreamUrl}/v1`,
        models: ['fuzz-responses'],
      },
      path: bodyPath,
      model: 'openai/fuzz-responses',
      validBody: (model, text, stream, maxTokens) => ({
        model,
        input: [{ role: 'user', content: text }],
        max_output_tokens: maxTokens,
        ...(stream ? { stream: true } : {}),
      }),
    },
    'anthropic-messages': {
      connection: {
        provider: 'anthropic',
        wire: 'anthropic-messages',
        baseUrl: `${upstreamUrl}/v1`,
        models: ['fuzz-messages'],
      },
      path: bodyPath,
      model: 'anthropic/fuzz-messages',
      validBody: (model, text, stream, maxTokens) => ({
        model,
        max_tokens: maxTokens,
        messages: [{ role: 'user', content: text }],
        ...(stream ? { stream: true } : {}),
      }),
    },
    'anthropic-count-tokens': {
      // Served by the messages connection, which counts itself (a model on any other gets the gateway's estimate).
      connection: {
        provider: 'anthropic',
        wire: 'anthropic-messages',
        baseUrl: `${upstreamUrl}/v1`,
        models: ['fuzz-messages'],
      },
      path: bodyPath,
      model: 'anthropic/fuzz-messages',
      validBody: (model, text) => ({ model, messages: [{ role: 'user', content: text }] }),
    },
    gemini: {
      connection: { provider: 'google', wire: 'gemini', baseUrl: `${upstreamUrl}/v1beta`, models: ['fuzz-gemini'] },
      path: (route, model, stream) =>
        `${route.path}models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      model: 'google/fuzz-gemini',
      validBody: (_model, text, _stream, maxTokens) => ({
        contents: [{ role: 'user', parts: [{ text }] }],
        generationConfig: { maxOutputTokens: maxTokens },
      }),
    },
    'gemini-count-tokens': {
      connection: { provider: 'google', wire: 'gemini', baseUrl: `${upstreamUrl}/v1beta`, models: ['fuzz-gemini'] },
      path: (route, model) => `${route.path}models/${model}:countTokens`,
      model: 'google/fuzz-gemini',
      validBody: (_model, text) => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
    },
  };
}

/** One generated request: where it goes and the exact bytes and headers it carries. */
export interface FuzzRequest {
  kind: string;
  path: string;
  body: Buffer;
  headers: Record<string, string>;
}

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', 'hello', '\u0000', '\ud800', 'data:text/plain;base64,aGk=', 'https://example.invalid/a.png'),
);
const maxTokens = fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.constant(16));
const hugeNumber = fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -1, 0, 1.5, Number.MAX_SAFE_INTEGER, -0);
/** Nesting and sizes the process must take in stride; the extreme ones are separate known-bug tests. */
const nested = fc.integer({ min: 1, max: 500 }).map((depth) => {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { nested: value };
  return value;
});

/** Changes one thing of a valid body: the shapes a client bug or an attacker sends. */
const mutation: fc.Arbitrary<[string, (body: JsonObject) => JsonObject]> = fc.oneof(
  fc.constant<[string, (body: JsonObject) => JsonObject]>(['as is', (body) => body]),
  fc.nat().map((pick): [string, (body: JsonObject) => JsonObject] => [
    'a field removed',
    (body) => {
      const keys = Object.keys(body);
      const copy = { ...body };
      delete copy[keys[pick % keys.length] as string];
      return copy;
    },
  ]),
  fc.tuple(fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([pick, value]): [string, (body: JsonObject) => JsonObject] => [
    'a field of the wrong type',
    (body) => {
      const keys = Object.keys(body);
      return { ...body, [keys[pick % keys.length] as string]: value };
    },
  ]),
  fc
    .tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 4 }))
    .map(([name, value]): [string, (body: JsonObject) => JsonObject] => [
      'an unknown field',
      (body) => ({ ...body, [name]: value }),
    ]),
  fc
    .tuple(
      fc.constantFrom('max_tokens', 'max_output_tokens', 'max_completion_tokens', 'stream', 'temperature'),
      hugeNumber,
    )
    .map(([field, value]): [string, (body: JsonObject) => JsonObject] => [
      'a huge or odd number',
      (body) => ({ ...body, [field]: value }),
    ]),
  nested.map((value): [string, (body: JsonObject) => JsonObject] => [
    'deep nesting',
    (body) => ({ ...body, metadata: value }),
  ]),
  fc
    .oneof(
      fc.string({ maxLength: 300 }),
      fc.constantFrom('lb2/openai/fuzz-chat', 'nope/x', '../../etc', 'a'.repeat(257), '__proto__', 'constructor'),
    )
    .map((model): [string, (body: JsonObject) => JsonObject] => ['another model', (body) => ({ ...body, model })]),
  fc
    .constantFrom('__proto__', 'constructor', 'prototype')
    .map((name): [string, (body: JsonObject) => JsonObject] => [
      'a prototype key',
      (body) => JSON.parse(`{"${name}":{"polluted":true},${JSON.stringify(body).slice(1)}`) as JsonObject,
    ]),
);

/** Turns a body into bytes, sometimes broken: duplicate keys, invalid UTF-8, truncation, overflowing numbers. */
const encoding: fc.Arbitrary<[string, (body: unknown) => Buffer]> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constant<[string, (body: unknown) => Buffer]>(['json', (body) => Buffer.from(JSON.stringify(body))]),
  },
  fc.string({ maxLength: 8 }).map((model): [string, (body: unknown) => Buffer] => [
    'duplicate keys',
    (body) => {
      const json = JSON.stringify(body);
      // The same key twice, first and last: parsers disagree on which one wins.
      return Buffer.from(
        json.startsWith('{') && json.length > 2
          ? `{"model":${JSON.stringify(model)},${json.slice(1, -1)},"stream":false}`
          : json,
      );
    },
  ]),
  fc
    .tuple(
      fc.nat(),
      fc.uint8Array({ minLength: 1, maxLength: 4 }).map((bytes) => bytes.map((byte) => 0x80 | byte)),
    )
    .map(([at, bytes]): [string, (body: unknown) => Buffer] => [
      'invalid UTF-8',
      (body) => {
        const json = Buffer.from(JSON.stringify(body));
        const cut = at % (json.length + 1);
        return Buffer.concat([json.subarray(0, cut), Buffer.from(bytes), json.subarray(cut)]);
      },
    ]),
  fc.nat().map((at): [string, (body: unknown) => Buffer] => [
    'truncated',
    (body) => {
      const json = Buffer.from(JSON.stringify(body));
      return json.subarray(0, at % json.length);
    },
  ]),
  fc.constant<[string, (body: unknown) => Buffer]>([
    'overflowing number text',
    (body) => Buffer.from(JSON.stringify(body).replace(/(\d+)([,}])/, '1e999$2')),
  ]),
);

/** Anything at all as the body: other JSON values, random bytes, nothing. */
const junkBody: fc.Arbitrary<[string, Buffer]> = fc.oneof(
  fc
    .jsonValue({ maxDepth: 4 })
    .map((value): [string, Buffer] => ['any JSON value', Buffer.from(JSON.stringify(value) ?? 'null')]),
  fc.uint8Array({ maxLength: 200 }).map((bytes): [string, Buffer] => ['random bytes', Buffer.from(bytes)]),
  fc.constant<[string, Buffer]>(['empty', Buffer.alloc(0)]),
);

/** Header values Node's client will send (no CR, LF or NUL); anything else is for the raw-socket cases. */
const headerValue = fc.oneof(
  fc.string({ maxLength: 60 }).map((value) => value.replace(/[^\t\x20-\x7e]/g, '')),
  fc.string({ unit: 'binary', maxLength: 30 }).map((value) =>
    // Latin-1 bytes above 0x7f are legal on the wire and arrive as invalid UTF-8.
    Buffer.from(value, 'utf8')
      .toString('latin1')
      .replace(/[^\t\x20-\x7e\x80-\xff]/g, ''),
  ),
  // Long, yet inside Node's 16 KB header limit: beyond it the HTTP server itself answers 431 before any gateway code.
  fc.constant('x'.repeat(4_000)),
);

export function hostileHeaders(keys: { valid: string; admin: string; prefixes: readonly string[] }) {
  const authorization: fc.Arbitrary<[string, Record<string, string>]> = fc.oneof(
    {
      weight: 16,
      arbitrary: fc.constant<[string, Record<string, string>]>(['bearer', { authorization: `Bearer ${keys.valid}` }]),
    },
    { weight: 2, arbitrary: fc.constant<[string, Record<string, string>]>(['x-api-key', { 'x-api-key': keys.valid }]) },
    {
      weight: 2,
      arbitrary: fc.constant<[string, Record<string, string>]>(['x-goog-api-key', { 'x-goog-api-key': keys.valid }]),
    },
    fc.constant<[string, Record<string, string>]>(['no key', {}]),
    fc.constant<[string, Record<string, string>]>([
      'conflicting keys',
      { authorization: `Bearer ${keys.valid}`, 'x-api-key': keys.admin },
    ]),
    headerValue.map((value): [string, Record<string, string>] => ['random authorization', { authorization: value }]),
    headerValue.map((value): [string, Record<string, string>] => [
      'random bearer',
      { authorization: `Bearer sk-gw-${value}` },
    ]),
    fc.constant<[string, Record<string, string>]>([
      'near-miss key',
      { authorization: `Bearer ${keys.valid.slice(0, -1)}A` },
    ]),
  );
  const someExtra: fc.Arbitrary<Record<string, string>> = fc.record(
    {
      'x-gateway-upstream': fc.oneof(fc.constantFrom(...keys.prefixes, '__proto__', 'constructor', ''), headerValue),
      'content-type': fc.oneof(
        fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x'),
        headerValue,
      ),
      'content-encoding': fc.constantFrom('gzip', 'br', 'identity'),
      upgrade: fc.constant('websocket'),
      'x-forwarded-for': headerValue,
      'x-request-id': headerValue,
    },
    { requiredKeys: [] },
  );
  // Mostly none: each of these refuses the request early, and the later stages need requests that get there.
  const extra = fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, someExtra);
  return fc.tuple(authorization, extra);
}

/** A query string that now and then tries to carry a key. */
export function hostileQuery(validKey: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant('') },
    fc
      .constantFrom('key', 'api_key', 'KEY', 'access_token', 'x-api-key')
      .map((name) => `${name}=${encodeURIComponent(validKey)}`),
    fc
      .dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 10 }), { maxKeys: 3 })
      .map((query) => new URLSearchParams(query).toString()),
  );
}

/** The requests to send to one route: valid, near-valid, broken encodings, junk bodies, hostile headers. */
export function fuzzRequests(
  route: RouteDefinition,
  wire: WireCase,
  keys: { valid: string; admin: string; prefixes: readonly string[] },
): fc.Arbitrary<FuzzRequest> {
  const valid = fc.tuple(text, fc.boolean(), maxTokens).map(([content, stream, tokens]) => ({
    stream,
    body: wire.validBody(wire.model, content, stream, tokens),
  }));
  const payload: fc.Arbitrary<{ kind: string; stream: boolean; body: Buffer }> = fc.oneof(
    {
      weight: 2,
      arbitrary: valid.map(({ stream, body }) => ({ kind: 'valid', stream, body: Buffer.from(JSON.stringify(body)) })),
    },
    {
      weight: 5,
      arbitrary: fc.tuple(valid, mutation, encoding).map(([{ stream, body }, [change, apply], [encode, toBytes]]) => ({
        kind: `${change}, ${encode}`,
        stream,
        body: toBytes(apply(body)),
      })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(junkBody, fc.boolean()).map(([[kind, body], stream]) => ({ kind, stream, body })),
    },
  );
  return fc
    .tuple(
      payload,
      hostileHeaders(keys),
      hostileQuery(keys.valid),
      // Now and then through an upstream prefix in the path, which routing must reconcile with the other choices.
      fc.option(fc.constantFrom(...keys.prefixes), { freq: 9 }),
    )
    .map(([{ kind, stream, body }, [[authKind, authHeaders], extra], query, prefix]) => {
      const path = `${prefix === null ? '' : `/${prefix}`}${wire.path(route, wire.model, stream)}`;
      const separator = path.includes('?') ? '&' : '?';
      return {
        kind: `${kind}; ${authKind}${query ? '; query' : ''}${prefix === null ? '' : `; /${prefix}`}`,
        path: query ? `${path}${separator}${query}` : path,
        body,
        // The key headers last, so a random extra header never replaces them.
        headers: { ...extra, ...authHeaders },
      };
    });
}
