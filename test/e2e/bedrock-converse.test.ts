import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeBedrock, fakeAwsCredentials, startFakeBedrock } from '../support/fake-bedrock.ts';
import { pngHeader } from '../support/image-headers.ts';
import { anthropicClient, openaiClient } from '../support/sdk-clients.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * Issue 22, item 3, from the outside: Bedrock's models other than Anthropic's (Nova, Kimi, Llama, …) through
 * Converse and ConverseStream, translated from chat (the hub), on a Bedrock connection that holds no credential:
 * each request signed with SigV4 as the host and checked by a stand-in that recomputes the signature, its stream
 * in AWS's binary event-stream framing. Chat, Responses and messages clients, with the official SDKs and the AI SDK.
 */
const nova = 'us.amazon.nova-lite-v1:0';
const kimi = 'moonshotai.kimi-k2-thinking';
const publicNova = `bedrock/${nova}`;
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
    models: [nova, { id: kimi, maxOutput: 16_000 }],
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

interface ConverseBody {
  messages: { role: string; content: Record<string, unknown>[] }[];
  system?: { text: string }[];
  inferenceConfig: { maxTokens: number; stopSequences?: string[]; temperature?: number };
  toolConfig?: { tools: { toolSpec: { name: string } }[] };
}

function received(index = 0) {
  const request = bedrock.requests[index];
  if (!request) throw new Error(`Bedrock received no request ${index}`);
  return request;
}

/** Nothing of the caller's key, the gateway's headers or the AWS secret reaches Bedrock: the signature only. */
function expectOnlyTheSignature(index = 0) {
  const request = received(index);
  expect(request.refusedAs).toBeUndefined();
  const sent = JSON.stringify(request.headers) + request.body;
  expect(sent).not.toContain(memberKeyPrefix);
  expect(sent).not.toContain(fakeAwsCredentials.secretAccessKey);
  expect(Object.keys(request.headers).filter((name) => name.startsWith('x-gateway'))).toEqual([]);
  expect(request.headers['authorization']).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCKTEST1\/\d{8}\/us-west-2\/bedrock\/aws4_request/,
  );
}

const readFile = {
  type: 'function' as const,
  function: { name: 'read_file', description: 'reads a file', parameters: { type: 'object', properties: {} } },
};

describe('the openai SDK on a Converse model', () => {
  it('answers through Converse: system, stop sequences and the cap sent, charged as the usage measured', async () => {
    bedrock.nextResponse({ type: 'answer', cacheWriteInputTokens: 3 });
    const client = openaiClient(gateway, key);
    const { data: answer, response } = await client.chat.completions
      .create({
        model: publicNova,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello nova' },
        ],
        stop: ['END'],
        max_tokens: 300,
      })
      .withResponse();
    expect(answer.choices[0]?.message.content).toBe('echo: hello nova');
    expect(answer.choices[0]?.finish_reason).toBe('stop');
    expect(answer.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 9 });
    const request = received();
    expect(request.rawPath).toBe('/model/us.amazon.nova-lite-v1%3A0/converse');
    expect(request.json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hello nova' }] }],
      system: [{ text: 'be brief' }],
      inferenceConfig: { maxTokens: 300, stopSequences: ['END'] },
    });
    expectOnlyTheSignature();
    // Bedrock's usage: 9 input, 5 cache reads and 3 cache writes apart from it; the gateway counts all 17 as input.
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    expect(record).toMatchObject({ inputTokens: 17, cachedInputTokens: 5, outputTokens: 9 });
  });

  it('always sends maxTokens: the reservation bounds the output even when the client names no cap', async () => {
    await openaiClient(gateway, key).chat.completions.create({
      model: `bedrock/${kimi}`,
      messages: [{ role: 'user', content: 'no cap named' }],
    });
    expect(received().rawPath).toBe('/model/moonshotai.kimi-k2-thinking/converse');
    // The model's declared limit (16,000) is the most it may write.
    expect((received().json as ConverseBody).inferenceConfig.maxTokens).toBeLessThanOrEqual(16_000);
    expect((received().json as ConverseBody).inferenceConfig.maxTokens).toBeGreaterThan(0);
  });

  it('streams from ConverseStream’s binary frames, usage included, charged as its metadata event measured', async () => {
    bedrock.nextResponse({
      type: 'answer',
      usage: { inputTokens: 40, cachedInputTokens: 6, outputTokens: 11 },
      cacheWriteInputTokens: 20,
    });
    const { data: stream, response } = await openaiClient(gateway, key)
      .chat.completions.create({
        model: publicNova,
        messages: [{ role: 'user', content: 'stream from nova' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('echo: stream from nova');
    expect(usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 11 });
    expect(received().rawPath).toBe('/model/us.amazon.nova-lite-v1%3A0/converse-stream');
    expect(received().headers['accept']).toBe('application/vnd.amazon.eventstream');
    expectOnlyTheSignature();
    // Bedrock's metadata said 14 input, 6 cache reads, 20 cache writes and 11 output: 40 input in all, 6 of it cached.
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    expect(record).toMatchObject({ source: 'measured', inputTokens: 40, cachedInputTokens: 6, outputTokens: 11 });
    expect(record.charge).toBeLessThanOrEqual(record.reserved);
  });

  it('calls tools, streamed and not, and sends the result back as a toolResult block', async () => {
    const client = openaiClient(gateway, key);
    const whole = await client.chat.completions.create({
      model: publicNova,
      tools: [readFile],
      messages: [{ role: 'user', content: 'open the readme' }],
    });
    const call = whole.choices[0]?.message.tool_calls?.[0];
    expect(whole.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function).toEqual({
      name: 'read_file',
      arguments: JSON.stringify({ input: 'open the readme' }),
    });
    expect((received(0).json as ConverseBody).toolConfig?.tools[0]?.toolSpec.name).toBe('read_file');

    const stream = await client.chat.completions.create({
      model: publicNova,
      tools: [readFile],
      stream: true,
      messages: [{ role: 'user', content: 'open the changelog' }],
    });
    let name = '';
    let args = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.tool_calls?.[0];
      name += delta?.function?.name ?? '';
      args += delta?.function?.arguments ?? '';
    }
    expect(name).toBe('read_file');
    expect(JSON.parse(args)).toEqual({ input: 'open the changelog' });

    if (call?.type !== 'function') throw new Error('expected a function call');
    const followUp = await client.chat.completions.create({
      model: publicNova,
      tools: [readFile],
      messages: [
        { role: 'user', content: 'open the readme' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'README: hello' },
      ],
    });
    expect(followUp.choices[0]?.message.content).toBe('echo: README: hello');
    const sent = received(2).json as ConverseBody;
    expect(sent.messages.at(-1)?.content[0]).toMatchObject({
      toolResult: { toolUseId: expect.any(String), content: [{ text: 'README: hello' }] },
    });
  });

  it('sends an image as a Converse image block', async () => {
    const png = pngHeader(56, 56).toString('base64');
    await openaiClient(gateway, key).chat.completions.create({
      model: publicNova,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          ],
        },
      ],
    });
    expect((received().json as ConverseBody).messages[0]?.content).toEqual([
      { text: 'what is this' },
      { image: { format: 'png', source: { bytes: png } } },
    ]);
  });

  it('hands back the model’s reasoning as reasoning_content', async () => {
    bedrock.nextResponse({ type: 'answer', reasoning: 'thinking it over' });
    const answer = await openaiClient(gateway, key).chat.completions.create({
      model: `bedrock/${kimi}`,
      messages: [{ role: 'user', content: 'think first' }],
    });
    const message = answer.choices[0]?.message as { content: string; reasoning_content?: string };
    expect(message.reasoning_content).toBe('thinking it over');
    expect(message.content).toBe('echo: think first');
  });
});

describe('reasoning on a Converse model', () => {
  it('streams reasoning as reasoning_content, and sends the signed reasoning back with the tool result', async () => {
    bedrock.nextResponse({ type: 'answer', reasoning: 'the readme is the place to start' });
    const client = openaiClient(gateway, key);
    const stream = await client.chat.completions.create({
      model: `bedrock/${kimi}`,
      tools: [readFile],
      stream: true,
      messages: [{ role: 'user', content: 'open the readme' }],
    });
    let reasoning = '';
    let id = '';
    let args = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      id += call?.id ?? '';
      args += call?.function?.arguments ?? '';
    }
    expect(reasoning).toBe('the readme is the place to start');
    await client.chat.completions.create({
      model: `bedrock/${kimi}`,
      tools: [readFile],
      messages: [
        { role: 'user', content: 'open the readme' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: args } }],
        },
        { role: 'tool', tool_call_id: id, content: 'README: hello' },
      ],
    });
    // The reasoning went back as Converse's signed block, before the tool call, as the model wrote it.
    const assistant = (received(1).json as ConverseBody).messages[1];
    expect(assistant?.role).toBe('assistant');
    expect(assistant?.content[0]).toEqual({
      reasoningContent: { reasoningText: { text: 'the readme is the place to start', signature: 'fake-signature' } },
    });
    expect(assistant?.content[1]).toMatchObject({
      toolUse: { name: 'read_file', input: { input: 'open the readme' } },
    });
  });
});

describe('Responses and messages clients on a Converse model, through chat', () => {
  it('streams the Responses API (openai SDK responses.create)', async () => {
    const stream = await openaiClient(gateway, key).responses.create({
      model: publicNova,
      input: 'hello from responses',
      stream: true,
    });
    let text = '';
    let completed: { usage?: unknown } | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response as { usage?: unknown };
    }
    expect(text).toBe('echo: hello from responses');
    expect(completed?.usage).toMatchObject({ input_tokens: 17, output_tokens: 9 });
    expect(received().rawPath).toBe('/model/us.amazon.nova-lite-v1%3A0/converse-stream');
    expect((received().json as ConverseBody).messages).toEqual([
      { role: 'user', content: [{ text: 'hello from responses' }] },
    ]);
  });

  it('answers /v1/messages with the anthropic SDK, streamed and not', async () => {
    const client = anthropicClient(gateway, key);
    const whole = await client.messages.create({
      model: publicNova,
      max_tokens: 200,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hello from messages' }],
    });
    expect(whole.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: hello from messages' })]);
    expect(whole.usage).toMatchObject({ output_tokens: 9 });
    expect(received(0).json).toMatchObject({
      system: [{ text: 'be brief' }],
      inferenceConfig: { maxTokens: 200 },
    });
    const streamed = await client.messages
      .stream({ model: publicNova, max_tokens: 200, messages: [{ role: 'user', content: 'stream please' }] })
      .finalMessage();
    expect(streamed.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: stream please' })]);
    expect(received(1).rawPath).toBe('/model/us.amazon.nova-lite-v1%3A0/converse-stream');
    expectOnlyTheSignature(1);
  });

  it('counts tokens for a Converse model by the gateway’s estimate: Converse has no count, nothing is sent', async () => {
    const response = await postJson(gateway, key, '/v1/messages/count_tokens', {
      model: publicNova,
      messages: [{ role: 'user', content: 'count me' }],
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-gateway-token-count-source')).toBe('estimate');
    expect(bedrock.requests).toHaveLength(0);
  });

  it('serves the AI SDK (@ai-sdk/openai, chat) with generateText and streamText, tools included', async () => {
    const openai = createOpenAI({ apiKey: key, baseURL: gateway.baseURL });
    const generated = await generateText({ model: openai.chat(publicNova), prompt: 'hello ai sdk' });
    expect(generated.text).toBe('echo: hello ai sdk');
    expect(generated.usage).toMatchObject({ inputTokens: 17, outputTokens: 9 });
    const streamed = streamText({ model: openai.chat(publicNova), prompt: 'stream ai sdk' });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    expect(text).toBe('echo: stream ai sdk');
    const withTool = await generateText({
      model: openai.chat(publicNova),
      prompt: 'weather in Oslo',
      tools: {
        weather: tool({
          description: 'The weather in a city',
          inputSchema: jsonSchema<{ input: string }>({ type: 'object', properties: { input: { type: 'string' } } }),
        }),
      },
    });
    expect(withTool.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'weather', input: { input: 'weather in Oslo' } }),
    ]);
    expect(bedrock.requests.map((request) => request.operation)).toEqual(['converse', 'converse-stream', 'converse']);
  });
});

describe('Bedrock’s errors and endings on Converse', () => {
  it('keeps a throttle’s 429 and Bedrock’s exception name before the first byte, in each client’s envelope', async () => {
    bedrock.nextResponse({
      type: 'error',
      status: 429,
      exception: 'ThrottlingException',
      message: 'Too many requests',
    });
    const chat = await postJson(gateway, key, '/v1/chat/completions', {
      model: publicNova,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(chat.status).toBe(429);
    expect(await chat.json()).toMatchObject({
      error: {
        message: 'ThrottlingException: Too many requests',
        type: 'rate_limit_error',
        code: 'ThrottlingException',
      },
    });
    bedrock.nextResponse({
      type: 'error',
      status: 429,
      exception: 'ThrottlingException',
      message: 'Too many requests',
    });
    await expect(
      anthropicClient(gateway, key).messages.create({
        model: publicNova,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({
      status: 429,
      error: {
        type: 'error',
        error: { type: 'rate_limit_error', message: expect.stringContaining('ThrottlingException') },
      },
    });
    for (const [status, exception] of [
      [400, 'ValidationException'],
      [403, 'AccessDeniedException'],
      [404, 'ResourceNotFoundException'],
      [503, 'ServiceUnavailableException'],
    ] as const) {
      bedrock.nextResponse({ type: 'error', status, exception });
      const answer = await postJson(gateway, key, '/v1/responses', { model: publicNova, input: 'x' });
      expect(answer.status).toBe(status);
      expect(JSON.stringify(await answer.json())).toContain(exception);
    }
  });

  it('ends the client’s stream with its wire’s error event on an exception frame mid-stream', async () => {
    bedrock.nextResponse({
      type: 'answer',
      streamException: { afterEvents: 3, exception: 'modelStreamErrorException', message: 'the model failed' },
    });
    const chat = await postJson(gateway, key, '/v1/chat/completions', {
      model: publicNova,
      stream: true,
      messages: [{ role: 'user', content: 'one two three four five' }],
    });
    const text = await chat.text();
    expect(text).toContain('"content":"echo:"');
    expect(text).toMatch(/"error":\{[^}]*"message":"[^"]*the model failed/);
    expect(text).not.toContain('[DONE]');
    const record = await settledRecord(gateway.host.services, chat.headers.get('x-request-id') ?? '');
    expect(record.state).not.toBe('completed');

    bedrock.nextResponse({ type: 'answer', streamException: { afterEvents: 2, exception: 'throttlingException' } });
    const messages = await postJson(gateway, key, '/v1/messages', {
      model: publicNova,
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'one two three' }],
    });
    const events = await messages.text();
    expect(events).toContain('event: message_start');
    expect(events).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"rate_limit_error"/);
    expect(events).not.toContain('message_stop');
  });

  it('ends a Responses stream with its failure event on an exception frame', async () => {
    bedrock.nextResponse({
      type: 'answer',
      streamException: { afterEvents: 3, exception: 'serviceUnavailableException', message: 'try again later' },
    });
    const response = await postJson(gateway, key, '/v1/responses', {
      model: publicNova,
      input: 'a b c d',
      stream: true,
    });
    const events = await response.text();
    expect(events).toContain('event: response.created');
    expect(events).toMatch(/event: (response\.failed|error)\n/);
    expect(events).toContain('try again later');
    expect(events).not.toContain('response.completed');
  });

  it('aborts the ConverseStream call when the client leaves mid-stream', async () => {
    bedrock.nextResponse({ type: 'answer', holdAfterEvents: 2 });
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: publicNova, stream: true, messages: [{ role: 'user', content: 'a b c' }] }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await bedrock.waitForClientClose(0);
    expect(received().clientClosedEarly).toBe(true);
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    expect(record.state).not.toBe('completed');
  });
});

describe('connection test of a Converse-only Bedrock connection', () => {
  it('proves it with a one-token Converse generation and reports Bedrock’s error codes', async () => {
    const id = await gateway.admin.createConnection({
      provider: 'nova-only',
      wire: 'bedrock',
      region: 'us-west-2',
      baseUrl: bedrock.url,
      models: ['amazon.nova-micro-v1:0'],
      apiKey: null,
    });
    const report = await gateway.admin.call<{ ok: boolean; probes: { call: string; ok: boolean; url: string }[] }>(
      'POST',
      `/connections/${id}/test`,
    );
    expect(report).toMatchObject({
      ok: true,
      probes: [{ call: 'generation', ok: true, url: `${bedrock.url}/model/amazon.nova-micro-v1%3A0/converse` }],
    });
    expect((received().json as ConverseBody).inferenceConfig.maxTokens).toBe(1);
    expectOnlyTheSignature();
    for (const [status, exception] of [
      [403, 'AccessDeniedException'],
      [404, 'ResourceNotFoundException'],
      [400, 'ValidationException'],
    ] as const) {
      bedrock.nextResponse({ type: 'error', status, exception });
      const failed = await gateway.admin.call<{
        ok: boolean;
        probes: { status: number; failure?: { awsError?: string } }[];
      }>('POST', `/connections/${id}/test`);
      expect(failed.ok).toBe(false);
      expect(failed.probes[0]).toMatchObject({ status, failure: { awsError: exception } });
    }
  });
});
