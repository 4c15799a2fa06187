import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * Requests no HTTP client library would send, written byte for byte on a socket: header lines that break the
 * grammar, smuggling attempts, lying lengths, oversized headers, duplicate credentials. Some are refused by
 * Node's HTTP parser before any gateway code runs (a bare 400 or 431, not the gateway's JSON); what matters is
 * that none gets a 5xx, none authenticates by accident, and the process keeps answering.
 */
const fixture = useGatewayFixture({
  environment: { GATEWAY_CACHE_TTL_MS: '60000' },
  connections: [{ provider: 'openai', wire: 'openai-chat', models: ['raw-model'] }],
  member: { dailyTokens: 1_000_000 },
});
let gateway: TestGateway;
let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ gateway } = fixture);
  ({ key } = fixture.member);
  ({ key: otherKey } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 }));
});

const body = JSON.stringify({ model: 'openai/raw-model', messages: [{ role: 'user', content: 'raw' }] });

/** Writes the bytes, reads until the server closes or goes quiet, and returns the status of each answer. */
function exchangeRaw(bytes: Buffer | string, quietMs = 500): Promise<{ statuses: number[]; text: string }> {
  const url = new URL(gateway.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((match) => Number(match[1]));
      resolve({ statuses, text });
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      quiet();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    socket.write(bytes);
    quiet();
  });
}

function request(headers: string[], payload = body): string {
  return [
    'POST /v1/chat/completions HTTP/1.1',
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    ...headers,
    '',
    payload,
  ].join('\r\n');
}

describe('hand-written HTTP', () => {
  it.each([
    [
      'a NUL byte in a header value',
      request([`Authorization: Bearer ${key}`, 'X-Odd: a\u0000b', `Content-Length: ${body.length}`]),
    ],
    [
      'a header line without a colon',
      request([`Authorization: Bearer ${key}`, 'not a header', `Content-Length: ${body.length}`]),
    ],
    [
      '20 KB of headers',
      request([`Authorization: Bearer ${key}`, `X-Big: ${'x'.repeat(20_000)}`, `Content-Length: ${body.length}`]),
    ],
    [
      'both Content-Length and Transfer-Encoding (smuggling)',
      request([`Authorization: Bearer ${key}`, 'Content-Length: 4', 'Transfer-Encoding: chunked'], `0\r\n\r\n${body}`),
    ],
    [
      'a broken chunk size',
      request([`Authorization: Bearer ${key}`, 'Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n'),
    ],
    [
      'HTTP/1.0 without a Host header',
      `POST /v1/chat/completions HTTP/1.0\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
  ])('%s: no 5xx', async (_name, raw) => {
    const { statuses } = await exchangeRaw(raw);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });

  // CloudFront and Lambda hand a function an origin-form path as sent; the local host must not resolve any other
  // form into a route, or a path-filtering proxy in front would check one path while the gateway serves another.
  it.each([
    ['an absolute URL', 'GET http://evil.example/admin/v1/connections'],
    ['an absolute URL naming this host', 'GET http://127.0.0.1/admin/v1/connections'],
    ['the asterisk form', 'OPTIONS *'],
    ['a leading //', 'GET //x/admin/v1/connections'],
    ['a // inside', 'GET /admin/v1//connections'],
    ['dot segments that climb out', 'GET /v1/models/../../admin/v1/connections'],
    ['a dot segment', 'GET /admin/./v1/connections'],
    ['percent-encoded dot segments', 'GET /v1/models/%2e%2e/%2E%2E/admin/v1/connections'],
    ['half-encoded dot segments', 'GET /v1/models/.%2e/.%2E/admin/v1/connections'],
    ['a backslash', 'GET /v1/models\\..\\..\\admin/v1/connections'],
    ['a fragment', 'GET /admin/v1/connections#x'],
  ])('%s: 400 invalid_request_target, and the admin API is not reached', async (_name, requestLine) => {
    const { statuses, text } = await exchangeRaw(
      `${requestLine} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${gateway.adminKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(statuses).toEqual([400]);
    expect(text).toContain('"code":"invalid_request_target"');
    expect(text).not.toContain('"connections"');
  });

  it('serves the same path when it is written plainly', async () => {
    const { statuses, text } = await exchangeRaw(
      `GET /admin/v1/connections HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${gateway.adminKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(statuses).toEqual([200]);
    expect(text).toContain('"connections"');
  });

  it('a stated length far above the body limit: 413 request_too_large without reading the body', async () => {
    const { statuses, text } = await exchangeRaw(
      request([`Authorization: Bearer ${key}`, 'Content-Length: 999999999'], '{'),
    );
    expect(statuses).toEqual([413]);
    // The body may come chunked; the gateway's JSON error is in it either way.
    expect(text).toMatch(/"code":"request_too_large"/);
  });

  it('never lets a request smuggled into a body reach the admin API', async () => {
    const { statuses } = await exchangeRaw(
      request(
        [`Authorization: Bearer ${key}`, 'Content-Length: 2'],
        `{}GET /admin/v1/keys HTTP/1.1\r\nHost: x\r\n\r\n`,
      ),
    );
    // The body ends after its stated two bytes; the GET behind it is a request of its own, without a key.
    expect(statuses).toEqual([400, 401]);
  });

  it('a body that is not UTF-8: 400 invalid_encoding in JSON, as a function URL hands it over base64-encoded', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"model":"openai/raw-model","x":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const head = request([`Authorization: Bearer ${key}`, `Content-Length: ${bytes.length}`], '');
    const { statuses, text } = await exchangeRaw(Buffer.concat([Buffer.from(head), bytes]));
    expect(statuses).toEqual([400]);
    expect(text).toContain('"code":"invalid_encoding"');
  });

  it('still answers a well-formed request after all of the above', async () => {
    const { statuses } = await exchangeRaw(request([`Authorization: Bearer ${key}`, `Content-Length: ${body.length}`]));
    expect(statuses[0]).toBe(200);
  });

  // Found by this suite: Node keeps only the first of two `Authorization` headers, while a Lambda function URL
  // joins them with a comma and refuses the result. The local host now joins them too, so two different keys are
  // refused on both hosts (spec §5 rule 1: refused rather than guessed between).
  it('refuses two Authorization headers that carry different keys', async () => {
    const { statuses } = await exchangeRaw(
      request([`Authorization: Bearer ${key}`, `Authorization: Bearer ${otherKey}`, `Content-Length: ${body.length}`]),
    );
    // Joined, the two headers name no key at all: refused as unauthenticated, not guessed between.
    expect(statuses).toEqual([401]);
  });
});
