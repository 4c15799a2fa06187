import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/gateway-error.ts';
import { parseConverseError } from '../../../shared/wires/bedrock-converse/bedrock-converse-upstream-error.ts';
import { bedrockConverseUpstreamWire } from '../../../shared/wires/bedrock-converse/bedrock-converse-upstream-wire.ts';
import { upstreamWireFor } from '../../../shared/wires/upstream-wires.ts';
import { clientWiresServedBy, connectionWires } from '../../../shared/wires/wire-names.ts';

const wire = bedrockConverseUpstreamWire;
const target = { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com/', credential: 'never-sent' };
const body = { model: 'client-model', stream: true, messages: [{ role: 'user', content: [{ text: 'hi' }] }] };

function build(upstreamModel: string, stream: boolean, outputCap?: number, extra: Record<string, unknown> = {}) {
  return wire.buildUpstreamRequest({
    target,
    body: { ...body, ...extra },
    upstreamModel,
    stream,
    operation: 'generate',
    outputCap,
  });
}

describe('the Converse upstream wire', () => {
  it('is the wire module for bedrock-converse, which no client speaks as it is and no connection names alone', async () => {
    // Loaded with the rest of Bedrock's code, which carries it (signing, framing) on a Bedrock connection.
    const loaded = await upstreamWireFor('bedrock-converse');
    expect(loaded.wire).toBe('bedrock-converse');
    expect(loaded.parseEvent).toBe(wire.parseEvent);
    expect(clientWiresServedBy('bedrock-converse')).toEqual([]);
    expect(connectionWires).not.toContain('bedrock-converse');
  });

  it('posts to /model/{id}/converse and /converse-stream, the id one encoded path segment', () => {
    expect(build('amazon.nova-lite-v1:0', false).url).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse',
    );
    expect(build('us.meta.llama3-3-70b-instruct-v1:0', true).url).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.meta.llama3-3-70b-instruct-v1%3A0/converse-stream',
    );
    const profile = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.deepseek.r1-v1:0';
    expect(build(profile, false).url).toBe(
      `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(profile)}/converse`,
    );
    expect(new URL(build('../../evil?x=1', false).url).pathname).toBe('/model/..%2F..%2Fevil%3Fx%3D1/converse');
  });

  it('sends no credential and no model or stream field: signing is the transport’s, the path names the rest', () => {
    const request = build('moonshotai.kimi-k2-thinking', true, 512);
    expect(request.method ?? 'POST').toBe('POST');
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      accept: 'application/vnd.amazon.eventstream',
    });
    expect(request.body).not.toContain('never-sent');
    const sent = JSON.parse(request.body) as Record<string, unknown>;
    expect(sent).not.toHaveProperty('model');
    expect(sent).not.toHaveProperty('stream');
    expect(sent.inferenceConfig).toEqual({ maxTokens: 512 });
  });

  it('writes the output allowance into inferenceConfig.maxTokens where the body states more or none', () => {
    const capped = (maxTokens: unknown, cap: number) =>
      (
        JSON.parse(build('m', false, cap, { inferenceConfig: { maxTokens, temperature: 0.2 } }).body) as {
          inferenceConfig: unknown;
        }
      ).inferenceConfig;
    expect(capped(4096, 1000)).toEqual({ maxTokens: 1000, temperature: 0.2 });
    expect(capped(300, 1000)).toEqual({ maxTokens: 300, temperature: 0.2 });
    expect(capped(undefined, 1000)).toEqual({ maxTokens: 1000, temperature: 0.2 });
  });

  it('has no request for a token count, nor a model list on the runtime endpoint', () => {
    expect(() =>
      wire.buildUpstreamRequest({ target, body, upstreamModel: 'm', stream: false, operation: 'count-tokens' }),
    ).toThrow(/count-tokens/);
    expect(() => wire.modelList?.request(target)).toThrow(/no model list/);
    expect(wire.minimalGeneration).toEqual({
      messages: [{ role: 'user', content: [{ text: 'ping' }] }],
      inferenceConfig: { maxTokens: 1 },
    });
  });

  it('reads an event in the frame form (named apart) and in the union form alike', () => {
    const named = wire.parseEvent({
      event: 'contentBlockDelta',
      data: '{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\\"a\\":"}},"p":"abc"}',
    });
    const union = wire.parseEvent({
      data: '{"contentBlockDelta":{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\\"a\\":"}}}}',
    });
    expect(named).toEqual({ type: 'contentBlockDelta', index: 2, delta: { toolUse: { input: '{"a":' } } });
    expect(union).toEqual(named);
    expect(wire.parseEvent({ event: 'messageStop', data: '{"stopReason":"end_turn"}' })).toEqual({
      type: 'messageStop',
      stopReason: 'end_turn',
    });
    expect(wire.parseEvent({ event: 'somethingNew', data: '{"x":1}' })).toBeUndefined();
    expect(wire.parseEvent({ data: 'not json' })).toBeUndefined();
  });

  it('an exception frame, in either form, is a failure with its message', () => {
    const framed = wire.parseEvent({
      event: 'modelStreamErrorException',
      data: '{"message":"The model failed.","originalStatusCode":500}',
    });
    const union = wire.parseEvent({ data: '{"throttlingException":{"message":"Slow down."}}' });
    expect(framed).toEqual({ type: 'exception', name: 'modelStreamErrorException', message: 'The model failed.' });
    expect(union).toEqual({ type: 'exception', name: 'throttlingException', message: 'Slow down.' });
    expect(framed && wire.isFailure(framed)).toBe(true);
    expect(wire.isFailure({ type: 'messageStop', stopReason: 'end_turn' })).toBe(false);
  });

  it('reads a whole answer tolerantly, and a body that is not one is a 502', () => {
    expect(
      wire.parseAnswer({ output: { message: { content: [{ text: 'hi', citationsContent: {} }] } }, extra: 1 }),
    ).toEqual({
      output: { message: { content: [{ text: 'hi' }] } },
    });
    expect(() => wire.parseAnswer({ output: 'nothing' })).toThrow(GatewayError);
  });

  it('reads an error body: message (or Message) and, when the body names it, the exception without its namespace', () => {
    expect(parseConverseError('{"message":"Malformed input request"}')).toEqual({
      message: 'Malformed input request',
      type: undefined,
    });
    expect(
      parseConverseError('{"__type":"com.amazon.bedrock#ThrottlingException","Message":"Too many requests"}'),
    ).toEqual({ message: 'Too many requests', type: 'ThrottlingException' });
    expect(parseConverseError('<html>Bad gateway</html>')).toBeUndefined();
    expect(parseConverseError('{}')).toBeUndefined();
  });
});
