import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { toFunctionUrlEvent } from '../../infra/local/function-url-event.ts';
import { fromFunctionUrlEvent } from '../../shared/http/gateway-request.ts';
import { readJsonObject } from '../../shared/http/read-request.ts';

/** The parts of a Node request the event is built from: the raw header list as received, and the connection. */
function nodeRequest(rawHeaders: string[]): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    headers[(rawHeaders[index] as string).toLowerCase()] ??= rawHeaders[index + 1] as string;
  }
  return {
    method: 'POST',
    httpVersion: '1.1',
    rawHeaders,
    headers,
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

const target = { host: '127.0.0.1:8080', path: '/v1/chat/completions', query: '' };

describe('the function-URL event of the local host', () => {
  it('carries a UTF-8 body as its text, as a function URL delivers JSON, and the handler reads it as sent', () => {
    const json = '{"model":"gpt-4o","messages":[{"role":"user","content":"ünïcode ✓"}]}';
    const event = toFunctionUrlEvent(
      nodeRequest(['Content-Type', 'application/json']),
      target,
      Buffer.from(json),
      'r1',
    );
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe(json);
    expect(readJsonObject(fromFunctionUrlEvent(event))).toEqual(JSON.parse(json));
  });

  it('carries a body that is not UTF-8 base64-encoded, as a function URL delivers binary, and it is refused', () => {
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const event = toFunctionUrlEvent(nodeRequest([]), target, bytes, 'r2');
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body ?? '', 'base64')).toEqual(bytes);
    expect(() => readJsonObject(fromFunctionUrlEvent(event))).toThrow(
      expect.objectContaining({ code: 'invalid_encoding' }),
    );
  });

  it('names headers in lowercase and joins repeated ones with a comma, as a function URL does', () => {
    const event = toFunctionUrlEvent(
      nodeRequest(['Authorization', 'Bearer one', 'X-Trace', 'a', 'authorization', 'Bearer two']),
      target,
      Buffer.alloc(0),
      'r3',
    );
    expect(event.headers).toEqual({ authorization: 'Bearer one,Bearer two', 'x-trace': 'a' });
  });

  it('takes a header named like a property of every object as a header like any other', () => {
    const event = toFunctionUrlEvent(
      nodeRequest(['Constructor', 'c', 'toString', 't', 'hasOwnProperty', 'h']),
      target,
      Buffer.alloc(0),
      'r4',
    );
    expect({ ...event.headers }).toEqual({ constructor: 'c', tostring: 't', hasownproperty: 'h' });
    expect(fromFunctionUrlEvent(event).headers.constructor).toBe('c');
  });

  it('gives the invocation its request id', () => {
    expect(toFunctionUrlEvent(nodeRequest([]), target, Buffer.alloc(0), 'req-7').requestContext.requestId).toBe(
      'req-7',
    );
  });
});
