import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeBedrock, fakeAwsCredentials, fakeBedrockApiKey, startFakeBedrock } from '../support/fake-bedrock.ts';
import { anthropicClient, openaiClient } from '../support/sdk-clients.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * Issue 22 from the outside: Anthropic's models on an Amazon Bedrock connection that holds no credential, every
 * request signed with SigV4 as the host's AWS identity (here the environment's, as Lambda gives a role's) and
 * checked by a stand-in that recomputes the signature; the messages format end to end, the stream decoded from
 * AWS's binary framing, Bedrock's errors in the client's envelope, usage charged as Bedrock's events measure it.
 */
const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
let bedrock: FakeBedrock;
let gateway: TestGateway;
let key: string;
let memberKeyPrefix: string;

beforeAll(async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', fakeAwsCredentials.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', fakeAwsCredentials.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', fakeAwsCredentials.sessionToken);
  bedrock = await startFakeBedrock();
  gateway = await startTestGateway();
  await gateway.admin.createConnection({
    provider: 'bedrock',
    wire: 'bedrock',
    region: 'us-west-2',
    baseUrl: bedrock.url,
    models: [model, { id: 'anthropic.claude-haiku-4-5-20251001-v1:0', maxOutput: 64_000 }],
    apiKey: null,
  });
  ({ key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 }));
  memberKeyPrefix = key.slice(0, 12);
});
afterAll(async () => {
  await gateway?.close();
  await bedrock?.close();
  vi.unstubAllEnvs();
});
beforeEach(() => bedrock.reset());

const publicModel = `bedrock/${model}`;

/** The JSON body Bedrock received in its nth request. */
function receivedJson<T>(index: number): T {
  const received = bedrock.requests[index];
  if (!received) throw new Error(`Bedrock received no request ${index}`);
  return received.json as T;
}

/** Nothing of the caller's key, the gateway's headers or the AWS secret reaches Bedrock: the signature only. */
function expectOnlyTheSignature(index = 0) {
  const received = bedrock.requests[index];
  expect(received?.refusedAs).toBeUndefined();
  const sent = JSON.stringify(received?.headers) + (received?.body ?? '');
  expect(sent).not.toContain(memberKeyPrefix);
  expect(sent).not.toContain(fakeAwsCredentials.secretAccessKey);
  expect(Object.keys(received?.headers ?? {}).filter((name) => name.startsWith('x-gateway'))).toEqual([]);
  expect(received?.headers['authorization']).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCKTEST1\/\d{8}\/us-west-2\/bedrock\/aws4_request/,
  );
}

describe('a Bedrock connection with no credential, signed as the host', () => {
  it('is created without a secret and shows its region', async () => {
    const { connections } = await gateway.admin.call<{
      connections: { wire: string; region?: string; baseUrl: string }[];
    }>('GET', '/connections');
    expect(connections).toEqual([
      expect.objectContaining({ wire: 'bedrock', region: 'us-west-2', baseUrl: bedrock.url }),
    ]);
  });

  it('answers /v1/messages through InvokeModel: the model in the path escaped, the body as Bedrock takes it', async () => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        model: publicModel,
        max_tokens: 100,
        system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'hello bedrock' }],
      }),
    });
    const answer = (await response.json()) as { content: { type: string; text?: string }[]; usage: unknown };
    expect(response.status, JSON.stringify(answer)).toBe(200);
    expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: hello bedrock' })]);
    const received = bedrock.requests[0];
    expect(received?.rawPath).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    expect(received?.json).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100,
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hello bedrock' }],
      anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'],
    });
    expect(received?.headers['anthropic-beta']).toBeUndefined();
    expectOnlyTheSignature();
    // Charged as Bedrock measured: 17 input (5 of them cache reads) and 9 output.
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    expect(record).toMatchObject({ inputTokens: 17, cachedInputTokens: 5, outputTokens: 9 });
  });

  it('streams /v1/messages from the binary event stream with the Anthropic SDK: thinking signed, tools called', async () => {
    const client = anthropicClient(gateway, key);
    const stream = client.messages.stream({
      model: publicModel,
      max_tokens: 2_000,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      tools: [{ name: 'read_file', description: 'reads a file', input_schema: { type: 'object', properties: {} } }],
      messages: [{ role: 'user', content: 'open the readme' }],
    });
    const message = await stream.finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    const thinking = message.content[0];
    expect(thinking?.type === 'thinking' && thinking.signature.length).toBeGreaterThan(0);
    expect(message.stop_reason).toBe('tool_use');
    expect(bedrock.requests[0]?.rawPath).toBe(
      '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream',
    );
    expect(bedrock.requests[0]?.headers['accept']).toBe('application/vnd.amazon.eventstream');
    expectOnlyTheSignature();
    // The signed thinking goes back as it came, and Bedrock's check of it passes.
    const toolUse = message.content[1];
    if (toolUse?.type !== 'tool_use') throw new Error('expected a tool call');
    const followUp = await client.messages.create({
      model: publicModel,
      max_tokens: 2_000,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      tools: [{ name: 'read_file', description: 'reads a file', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'open the readme' },
        { role: 'assistant', content: message.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'README: hello' }] },
      ],
    });
    expect(followUp.content.at(-1)).toMatchObject({ type: 'text' });
  });

  it('counts tokens with CountTokens on the foundation model, the invoke body in base64', async () => {
    const client = anthropicClient(gateway, key);
    const counted = await client.messages.countTokens({
      model: publicModel,
      messages: [{ role: 'user', content: 'count me' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const received = bedrock.requests[0];
    expect(received?.rawPath).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens');
    const { input } = receivedJson<{ input: { invokeModel: { body: string } } }>(0);
    expect(JSON.parse(Buffer.from(input.invokeModel.body, 'base64').toString('utf8'))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'count me' }],
    });
    expectOnlyTheSignature();
  });

  it('serves the openai SDK on a Claude model through the chat-to-messages hop, streamed and not', async () => {
    const client = openaiClient(gateway, key);
    const whole = await client.chat.completions.create({
      model: publicModel,
      messages: [{ role: 'user', content: 'hi from chat' }],
    });
    expect(whole.choices[0]?.message.content).toBe('echo: hi from chat');
    // The reservation bounds the output: the cap is always sent.
    expect(receivedJson<{ max_tokens?: unknown }>(0).max_tokens).toEqual(expect.any(Number));
    const stream = await client.chat.completions.create({
      model: publicModel,
      messages: [{ role: 'user', content: 'stream from chat' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('echo: stream from chat');
    expect(usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 9 });
  });

  it('keeps Bedrock’s status and names its exception before the first byte, in each client’s envelope', async () => {
    bedrock.nextResponse({
      type: 'error',
      status: 429,
      exception: 'ThrottlingException',
      message: 'Too many requests',
    });
    const throttled = await postJson(gateway, key, '/v1/messages', {
      model: publicModel,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(throttled.status).toBe(429);
    expect(await throttled.json()).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'ThrottlingException: Too many requests' },
    });
    bedrock.nextResponse({ type: 'error', status: 403, exception: 'AccessDeniedException', message: 'not allowed' });
    const denied = await postJson(gateway, key, '/v1/chat/completions', {
      model: publicModel,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(denied.status).toBe(403);
    const body = (await denied.json()) as { error: { message: string } };
    expect(body.error.message).toContain('AccessDeniedException');
    for (const [status, exception] of [
      [400, 'ValidationException'],
      [404, 'ResourceNotFoundException'],
      [503, 'ServiceUnavailableException'],
      [408, 'ModelTimeoutException'],
    ] as const) {
      bedrock.nextResponse({ type: 'error', status, exception });
      const answer = await postJson(gateway, key, '/v1/messages', {
        model: publicModel,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(answer.status).toBe(status);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(exception);
    }
  });

  it('ends the client’s stream with its wire’s error event on an exception frame mid-stream', async () => {
    bedrock.nextResponse({
      type: 'answer',
      streamException: { afterEvents: 3, exception: 'modelStreamErrorException', message: 'the model failed' },
    });
    const response = await postJson(gateway, key, '/v1/messages', {
      model: publicModel,
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'one two three four five' }],
    });
    const text = await response.text();
    expect(text).toContain('event: message_start');
    expect(text).toMatch(
      /event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"ModelStreamErrorException: the model failed"\}\}/,
    );
    expect(text).not.toContain('message_stop');
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    expect(record.state).toBe('failed');

    bedrock.nextResponse({ type: 'answer', streamException: { afterEvents: 2, exception: 'throttlingException' } });
    const chat = await postJson(gateway, key, '/v1/chat/completions', {
      model: publicModel,
      stream: true,
      messages: [{ role: 'user', content: 'one two three' }],
    });
    expect(await chat.text()).toMatch(/"error":\{[^}]*"message":"ThrottlingException/);
  });

  it('aborts the Bedrock call when the client leaves mid-stream', async () => {
    bedrock.nextResponse({ type: 'answer', holdAfterEvents: 2 });
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: publicModel,
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: 'a b c' }],
      }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await bedrock.waitForClientClose(0);
    expect(bedrock.requests[0]?.clientClosedEarly).toBe(true);
  });

  it('proves the connection with a one-token generation, reporting Bedrock’s own error codes', async () => {
    const { connections } = await gateway.admin.call<{ connections: { id: string }[] }>('GET', '/connections');
    const id = connections[0]?.id ?? '';
    const report = await gateway.admin.call<{ ok: boolean; probes: { call: string; ok: boolean }[] }>(
      'POST',
      `/connections/${id}/test`,
    );
    expect(report).toMatchObject({ ok: true, probes: [{ call: 'generation', ok: true }] });
    expect(receivedJson<{ max_tokens: number }>(0).max_tokens).toBe(1);
    bedrock.nextResponse({ type: 'error', status: 403, exception: 'AccessDeniedException' });
    const denied = await gateway.admin.call<{ ok: boolean; probes: { failure?: { awsError?: string } }[] }>(
      'POST',
      `/connections/${id}/test`,
    );
    expect(denied.ok).toBe(false);
    expect(denied.probes[0]?.failure?.awsError).toBe('AccessDeniedException');
  });
});

describe('a Bedrock connection with a Bedrock API key', () => {
  it('sends the key as a bearer token and signs nothing', async () => {
    await gateway.admin.createConnection({
      provider: 'bedrock-key',
      wire: 'bedrock',
      region: 'us-east-1',
      baseUrl: bedrock.url,
      models: ['anthropic.claude-haiku-4-5-20251001-v1:0'],
      apiKey: fakeBedrockApiKey,
    });
    const response = await postJson(gateway, key, '/v1/messages', {
      model: 'bedrock-key/anthropic.claude-haiku-4-5-20251001-v1:0',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'keyed' }],
    });
    expect(response.status).toBe(200);
    expect(bedrock.requests[0]?.headers['authorization']).toBe(`Bearer ${fakeBedrockApiKey}`);
    expect(bedrock.requests[0]?.headers['x-amz-date']).toBeUndefined();
  });

  it('refuses a Bedrock connection without a region, or without its models', async () => {
    const refused = async (body: unknown) => {
      const response = await fetch(`${gateway.url}/admin/v1/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { error: { code: string } } };
    };
    expect(await refused({ provider: 'b', wire: 'bedrock', models: [model] })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request' } },
    });
    expect(await refused({ provider: 'b', wire: 'bedrock', region: 'us-east-1', models: [] })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request' } },
    });
    expect(await refused({ provider: 'b', wire: 'openai-chat', baseUrl: 'https://api.example.com/v1' })).toMatchObject({
      status: 400,
    });
  });
});
