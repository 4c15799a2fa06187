import { setTimeout as sleep } from 'node:timers/promises';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStreamGate, type FakeUpstream, startFakeUpstream } from './fake-upstream.ts';

let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeUpstream();
});

afterEach(() => {
  upstream.reset();
});

afterAll(async () => {
  await upstream.close();
});

function post(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${upstream.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer provider-secret' },
    body: JSON.stringify(body),
    ...init,
  });
}

async function jsonOf(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/** Parses with the same SSE parser as the gateway, so a malformed frame shows up here first. */
function parseEvents(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

function dataOf(events: EventSourceMessage[]): unknown[] {
  return events.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data) as unknown);
}

async function textOfRead(read: Promise<{ done: boolean; value?: Uint8Array | undefined }>): Promise<string> {
  const result = await read;
  return result.done ? '' : new TextDecoder().decode(result.value);
}

const chatRequest = {
  model: 'k2.7',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'hello fake world' },
  ],
};

describe('recording', () => {
  it('records method, path, query, lowercased headers, raw and parsed body', async () => {
    const response = await post('/v1/chat/completions?trace=on', chatRequest, {
      headers: { 'Content-Type': 'application/json', 'X-Custom-Header': 'Value' },
    });
    await response.json();
    const [recorded] = upstream.requests;

    expect(recorded).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/chat/completions',
      query: { trace: 'on' },
      wire: 'openai-chat',
      json: chatRequest,
      rawBody: JSON.stringify(chatRequest),
    });
    expect(recorded?.headers['x-custom-header']).toBe('Value');
    expect(await upstream.waitForOutcome(0)).toBe('finished');
    expect(upstream.requests[0]?.clientClosedEarly).toBe(false);
  });

  it('serves any base path and answers 404 for a path it does not know', async () => {
    expect((await post('/api/paas/v4/chat/completions', chatRequest)).status).toBe(200);
    const unknown = await post('/v1/embeddings', { input: 'x' });

    expect(unknown.status).toBe(404);
    expect(await jsonOf(unknown)).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(upstream.requests[1]?.wire).toBeUndefined();
  });

  it('takes queued behaviours first, then the scenario, then the default answer', async () => {
    upstream.setScenario(() => ({ type: 'error', status: 503 }));
    upstream.nextResponse({ type: 'error', status: 429 });

    expect((await post('/v1/chat/completions', chatRequest)).status).toBe(429);
    expect((await post('/v1/chat/completions', chatRequest)).status).toBe(503);
    upstream.setScenario(undefined);
    expect((await post('/v1/chat/completions', chatRequest)).status).toBe(200);
  });
});

describe('OpenAI chat completions', () => {
  it('answers with an echo and usage including cached tokens', async () => {
    const body = await jsonOf(await post('/v1/chat/completions', chatRequest));

    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'k2.7',
      choices: [{ index: 0, message: { role: 'assistant', content: 'echo: hello fake world' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 17, completion_tokens: 9, total_tokens: 26, prompt_tokens_details: { cached_tokens: 5 } },
    });
  });

  it('streams role, content and finish chunks, then usage only when include_usage is set, then [DONE]', async () => {
    const withUsage = parseEvents(
      await (
        await post('/v1/chat/completions', { ...chatRequest, stream: true, stream_options: { include_usage: true } })
      ).text(),
    );
    const withoutUsage = parseEvents(
      await (await post('/v1/chat/completions', { ...chatRequest, stream: true })).text(),
    );

    expect(withUsage.at(-1)?.data).toBe('[DONE]');
    const chunks = dataOf(withUsage) as { choices: { delta: Record<string, unknown>; finish_reason: unknown }[] }[];
    expect(chunks[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant' });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta['content'] ?? '').join('')).toBe('echo: hello fake world');
    expect(chunks.length).toBeGreaterThan(4);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 17, completion_tokens: 9 } });
    expect(dataOf(withoutUsage).some((chunk) => (chunk as { usage?: unknown }).usage !== undefined)).toBe(false);
    expect(withoutUsage.at(-1)?.data).toBe('[DONE]');
  });

  it('calls the offered tool, whole and streamed', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const whole = await jsonOf(await post('/v1/chat/completions', { ...chatRequest, tools }));
    const streamed = dataOf(
      parseEvents(await (await post('/v1/chat/completions', { ...chatRequest, tools, stream: true })).text()),
    ) as {
      choices: { delta: { tool_calls?: { index: number; id?: string; function: Record<string, string> }[] } }[];
    }[];

    expect(whole).toMatchObject({
      choices: [
        {
          message: { content: null, tool_calls: [{ type: 'function', function: { name: 'lookup' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    });
    const deltas = streamed.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: 'call_fake_1', function: { name: 'lookup', arguments: '' } });
    expect(deltas.length).toBeGreaterThan(2);
    expect(JSON.parse(deltas.map((delta) => delta.function['arguments']).join(''))).toEqual({
      input: 'hello fake world',
    });
    expect(streamed.at(-1)).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] });
  });

  it('renders custom usage, and omits usage when told to', async () => {
    upstream.nextResponse(
      { type: 'answer', usage: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 3 } },
      { type: 'answer', usage: 'omit' },
    );

    expect(await jsonOf(await post('/v1/chat/completions', chatRequest))).toMatchObject({
      usage: { prompt_tokens: 1000, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 400 } },
    });
    expect(await jsonOf(await post('/v1/chat/completions', chatRequest))).not.toHaveProperty('usage');
  });
});

describe('Anthropic messages', () => {
  const messagesRequest = { model: 'k2.7', max_tokens: 64, messages: [{ role: 'user', content: 'hi there' }] };

  it('answers whole, with cache reads apart from input_tokens', async () => {
    expect(await jsonOf(await post('/v1/messages', messagesRequest))).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'echo: hi there' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 12, cache_read_input_tokens: 5, output_tokens: 9 },
    });
  });

  it('streams named events in the documented order', async () => {
    const text = await (await post('/v1/messages', { ...messagesRequest, stream: true })).text();
    const events = parseEvents(text);

    expect(text).toContain('event: message_start\n');
    expect([...new Set(events.map((event) => event.event))]).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const deltas = dataOf(events.filter((event) => event.event === 'content_block_delta')) as {
      delta: { text: string };
    }[];
    expect(deltas.map((delta) => delta.delta.text).join('')).toBe('echo: hi there');
    expect(dataOf(events.filter((event) => event.event === 'message_delta'))[0]).toMatchObject({
      usage: { output_tokens: 9 },
    });
  });

  it('counts tokens', async () => {
    upstream.nextResponse({ type: 'answer', usage: { inputTokens: 321, cachedInputTokens: 0, outputTokens: 0 } });

    expect(await jsonOf(await post('/v1/messages/count_tokens', messagesRequest))).toEqual({ input_tokens: 321 });
  });

  it('breaks off a started stream with an error event', async () => {
    upstream.nextResponse({ type: 'answer', streamError: { afterChunks: 2, status: 529, message: 'Overloaded' } });
    const events = parseEvents(await (await post('/v1/messages', { ...messagesRequest, stream: true })).text());

    expect(events.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'error']);
    expect(dataOf(events).at(-1)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });
});

describe('OpenAI responses', () => {
  const responsesRequest = { model: 'k2.7', input: 'ping' };

  it('answers whole and streamed, with cached input tokens in the completed usage', async () => {
    const whole = await jsonOf(await post('/v1/responses', responsesRequest));
    const events = parseEvents(await (await post('/v1/responses', { ...responsesRequest, stream: true })).text());

    expect(whole).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'echo: ping' }] }],
      usage: { input_tokens: 17, input_tokens_details: { cached_tokens: 5 }, output_tokens: 9 },
    });
    expect(events[0]?.event).toBe('response.created');
    expect(events.filter((event) => event.event === 'response.output_text.delta').length).toBe(2);
    expect(events.at(-1)?.event).toBe('response.completed');
    expect(dataOf(events).at(-1)).toMatchObject({
      response: { usage: { input_tokens: 17, input_tokens_details: { cached_tokens: 5 } } },
    });
  });
});

describe('Gemini generate-content', () => {
  const geminiRequest = { contents: [{ role: 'user', parts: [{ text: 'one two three' }] }] };

  it('answers whole, and streams data-only events with cumulative usage', async () => {
    const whole = await jsonOf(await post('/v1beta/models/gamma-pro:generateContent', geminiRequest));
    const text = await (await post('/v1beta/models/gamma-pro:streamGenerateContent?alt=sse', geminiRequest)).text();
    const chunks = dataOf(parseEvents(text)) as {
      candidates: { content: { parts: { text: string }[] }; finishReason?: string }[];
      usageMetadata: { candidatesTokenCount: number; promptTokenCount: number };
    }[];

    expect(whole).toMatchObject({
      candidates: [{ content: { parts: [{ text: 'echo: one two three' }], role: 'model' }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 17, candidatesTokenCount: 9, cachedContentTokenCount: 5 },
      modelVersion: 'gamma-pro',
    });
    expect(text).not.toContain('event:');
    expect(upstream.requests[1]?.query).toEqual({ alt: 'sse' });
    expect(chunks.map((chunk) => chunk.candidates[0]?.content.parts[0]?.text).join('')).toBe('echo: one two three');
    const outputCounts = chunks.map((chunk) => chunk.usageMetadata.candidatesTokenCount);
    expect(outputCounts).toEqual([...outputCounts].sort((left, right) => left - right));
    expect(outputCounts.at(-1)).toBe(9);
    expect(chunks.at(-1)?.candidates[0]?.finishReason).toBe('STOP');
  });

  it('renders an error in the google.rpc envelope', async () => {
    upstream.nextResponse({ type: 'error', status: 429, message: 'quota' });
    const response = await post('/v1beta/models/gamma-pro:generateContent', geminiRequest);

    expect(response.status).toBe(429);
    expect(await jsonOf(response)).toEqual({ error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } });
  });
});

describe('model lists', () => {
  it('serves each wire’s list in the shape its official SDK reads, told apart by the SDK’s credential header', async () => {
    upstream.setModels(['model-one', 'model-two']);
    const openai = new OpenAI({ apiKey: 'provider-secret', baseURL: `${upstream.url}/v1`, maxRetries: 0 });
    const openaiIds = [];
    for await (const model of openai.models.list()) openaiIds.push(model.id);
    const anthropic = new Anthropic({ apiKey: 'provider-secret', baseURL: upstream.url, maxRetries: 0 });
    const anthropicIds = [];
    for await (const model of anthropic.models.list()) anthropicIds.push(model.id);
    const google = new GoogleGenAI({ apiKey: 'provider-secret', httpOptions: { baseUrl: upstream.url } });
    const googleNames = [];
    for await (const model of await google.models.list()) googleNames.push(model.name);

    expect(openaiIds).toEqual(['model-one', 'model-two']);
    expect(anthropicIds).toEqual(['model-one', 'model-two']);
    expect(googleNames).toEqual(['models/model-one', 'models/model-two']);
    expect(upstream.requests.map((request) => [request.method, request.path, request.wire])).toEqual([
      ['GET', '/v1/models', 'openai-chat'],
      ['GET', '/v1/models', 'anthropic-messages'],
      ['GET', '/v1beta/models', 'gemini'],
    ]);
  });

  it('answers a queued failure instead of the list', async () => {
    upstream.nextResponse({ type: 'error', status: 401 });
    const response = await fetch(`${upstream.url}/v1/models`, { headers: { authorization: 'Bearer wrong' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });
});

describe('pacing and failures', () => {
  const streamedChat = { ...chatRequest, stream: true };

  it('delivers a stream incrementally: the client reads chunk 1 before chunk 2 is sent', async () => {
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate });
    const reader = (await post('/v1/chat/completions', streamedChat)).body!.getReader();

    expect(await textOfRead(reader.read())).toContain('"role":"assistant"');
    expect(gate.chunksSent).toBe(1);
    const secondRead = textOfRead(reader.read());
    const heldBack = await Promise.race([secondRead.then(() => false), sleep(150).then(() => true)]);
    expect(heldBack).toBe(true);
    gate.release();
    expect(await secondRead).toContain('"content":"echo:"');
    expect(gate.chunksSent).toBe(2);
    gate.releaseAll();
    await reader.cancel();
  });

  it('waits the given delay between chunks, sending each as it goes', async () => {
    upstream.nextResponse({ type: 'answer', delayBetweenChunksMilliseconds: 40 });
    const startedAt = performance.now();
    const reader = (await post('/v1/chat/completions', streamedChat)).body!.getReader();
    let text = await textOfRead(reader.read());
    const sentWhenFirstRead = upstream.requests[0]?.chunksSent;
    for (let result = await reader.read(); !result.done; result = await reader.read()) {
      text += new TextDecoder().decode(result.value);
    }

    // Seven events (role, four words, finish, [DONE]) mean six pauses.
    expect(parseEvents(text)).toHaveLength(7);
    expect(sentWhenFirstRead).toBeLessThan(7);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(6 * 40 - 5);
  });

  it('drops the connection after N chunks', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 2 });
    const response = await post('/v1/chat/completions', streamedChat);

    await expect(response.text()).rejects.toThrow();
    expect(await upstream.waitForOutcome(0)).toBe('server-destroyed');
    expect(upstream.requests[0]).toMatchObject({ chunksSent: 2, clientClosedEarly: false });
  });

  it('drops a whole reply halfway through its body, or before any byte', async () => {
    upstream.nextResponse({ type: 'answer', resetAfterChunks: 1 }, { type: 'answer', resetAfterChunks: 0 });

    await expect((await post('/v1/chat/completions', chatRequest)).text()).rejects.toThrow();
    await expect(post('/v1/chat/completions', chatRequest)).rejects.toThrow();
  });

  it('hangs without answering and records when the client gives up', async () => {
    upstream.nextResponse({ type: 'hang' });
    const abort = new AbortController();
    const call = post('/v1/chat/completions', chatRequest, { signal: abort.signal });
    await upstream.waitForRequest(0);
    abort.abort();

    await expect(call).rejects.toThrow();
    expect(await upstream.waitForClientClose(0)).toMatchObject({ clientClosedEarly: true, outcome: 'client-closed' });
  });

  it('records a client that cancels in the middle of a stream', async () => {
    const gate = createStreamGate({ initiallyReleased: 2 });
    upstream.nextResponse({ type: 'answer', gate });
    const response = await post('/v1/chat/completions', streamedChat);
    await gate.waitForChunksSent(2);
    await response.body?.cancel();

    expect(await upstream.waitForClientClose(0)).toMatchObject({ chunksSent: 2, clientClosedEarly: true });
  });

  it('refuses to report a client close for an exchange that finished', async () => {
    await (await post('/v1/chat/completions', chatRequest)).text();

    await expect(upstream.waitForClientClose(0)).rejects.toThrow(/ended as finished/);
  });
});

describe('official SDKs read the fake as they read a provider', () => {
  const lookupTool = { name: 'lookup', parameters: { type: 'object', properties: {} } };

  it('openai: a streamed chat with usage, a streamed tool call, a streamed response, a typed error', async () => {
    const openai = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'provider-secret', maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hi you' }];
    let text = '';
    let cachedTokens: number | undefined;
    const stream = await openai.chat.completions.create({
      model: 'k2.7',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      cachedTokens = chunk.usage?.prompt_tokens_details?.cached_tokens ?? cachedTokens;
    }
    const toolRun = openai.chat.completions.stream({
      model: 'k2.7',
      messages,
      tools: [{ type: 'function', function: lookupTool }],
    });
    const toolMessage = (await toolRun.finalChatCompletion()).choices[0]?.message;
    const response = await openai.responses.stream({ model: 'k2.7', input: 'yo' }).finalResponse();
    upstream.nextResponse({ type: 'error', status: 400, message: 'bad input' });

    expect(text).toBe('echo: hi you');
    expect(cachedTokens).toBe(5);
    expect(toolMessage?.tool_calls?.[0]).toMatchObject({
      function: { name: 'lookup', arguments: '{"input":"hi you"}' },
    });
    expect(response.output_text).toBe('echo: yo');
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(5);
    await expect(openai.chat.completions.create({ model: 'k2.7', messages })).rejects.toBeInstanceOf(
      OpenAI.BadRequestError,
    );
  });

  it('anthropic: a streamed message with combined usage, and a streamed tool use', async () => {
    const anthropic = new Anthropic({ baseURL: upstream.url, apiKey: 'provider-secret', maxRetries: 0 });
    const request = { model: 'k2.7', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hey' }] };
    const message = await anthropic.messages.stream(request).finalMessage();
    const toolUse = await anthropic.messages
      .stream({ ...request, tools: [{ name: 'lookup', input_schema: { type: 'object' } }] })
      .finalMessage();

    expect(message.content).toEqual([{ type: 'text', text: 'echo: hey' }]);
    expect(message.usage).toMatchObject({ input_tokens: 12, cache_read_input_tokens: 5, output_tokens: 9 });
    expect(toolUse.content).toEqual([
      { type: 'tool_use', id: 'toolu_fake_1', name: 'lookup', input: { input: 'hey' } },
    ]);
    expect(toolUse.stop_reason).toBe('tool_use');
  });

  it('google genai: a streamed generate-content with cumulative usage', async () => {
    const google = new GoogleGenAI({ apiKey: 'provider-secret', httpOptions: { baseUrl: upstream.url } });
    let text = '';
    let outputTokens: number | undefined;
    for await (const chunk of await google.models.generateContentStream({ model: 'gamma-pro', contents: 'hello' })) {
      text += chunk.text ?? '';
      outputTokens = chunk.usageMetadata?.candidatesTokenCount;
    }

    expect(text).toBe('echo: hello');
    expect(outputTokens).toBe(9);
    expect(upstream.requests[0]).toMatchObject({
      path: '/v1beta/models/gamma-pro:streamGenerateContent',
      query: { alt: 'sse' },
    });
    expect(upstream.requests[0]?.headers['x-goog-api-key']).toBe('provider-secret');
  });
});

describe('signed thinking on the messages wire, checked as the vendor checks it', () => {
  const thinkingOn = { type: 'enabled', budget_tokens: 1024 };
  const tool = { name: 'get_weather', input_schema: { type: 'object' } };
  const question = { role: 'user', content: 'Weather?' };

  /** A first turn that calls the tool, then the conversation that sends its result back with `assistant` as given. */
  async function loop(editAssistant: (content: Record<string, unknown>[]) => unknown[]) {
    const first = await jsonOf(
      await post('/v1/messages', {
        model: 'm',
        max_tokens: 2048,
        thinking: thinkingOn,
        tools: [tool],
        messages: [question],
      }),
    );
    const content = first.content as Record<string, unknown>[];
    const toolUse = content.find((block) => block.type === 'tool_use');
    return post('/v1/messages', {
      model: 'm',
      max_tokens: 2048,
      thinking: thinkingOn,
      tools: [tool],
      messages: [
        question,
        { role: 'assistant', content: editAssistant(content) },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.id, content: 'Sunny' }] },
      ],
    });
  }

  it('signs the thinking it returns, plain and streamed, and accepts it back unchanged', async () => {
    const accepted = await loop((content) => content);
    expect(accepted.status).toBe(200);
    const streamed = await post('/v1/messages', {
      model: 'm',
      max_tokens: 2048,
      thinking: thinkingOn,
      stream: true,
      messages: [question],
    });
    const types = dataOf(parseEvents(await streamed.text())).map((event) => {
      const { type, delta } = event as { type: string; delta?: { type: string } };
      return delta ? `${type}:${delta.type}` : type;
    });
    expect(types).toContain('content_block_delta:signature_delta');
  });

  it('refuses an altered or unsigned thinking block, altered redacted thinking, and a tool turn that lost its thinking', async () => {
    const edits: [string, (content: Record<string, unknown>[]) => unknown[]][] = [
      [
        'Invalid `signature`',
        (content) => content.map((b) => (b.type === 'thinking' ? { ...b, thinking: 'other' } : b)),
      ],
      [
        'signature: Field required',
        (content) => content.map((b) => (b.type === 'thinking' ? { type: 'thinking', thinking: b.thinking } : b)),
      ],
      ['Expected `thinking` or `redacted_thinking`', (content) => content.filter((b) => b.type !== 'thinking')],
      ['Invalid `data`', (content) => [{ type: 'redacted_thinking', data: 'fake-redacted.forged.eA==' }, ...content]],
    ];
    for (const [message, edit] of edits) {
      const refused = await loop(edit);
      expect(refused.status).toBe(400);
      expect(((await jsonOf(refused)).error as { message: string }).message).toContain(message);
    }
  });
});

describe('reasoning items on the Responses wire, checked as the vendor checks them', () => {
  const stateless = { model: 'm', store: false, include: ['reasoning.encrypted_content'] };

  async function reasoningItem(): Promise<Record<string, unknown>> {
    upstream.nextResponse({ type: 'answer', reasoning: 'Greet back.' });
    const answer = await jsonOf(
      await post('/v1/responses', { ...stateless, input: 'Hi', reasoning: { summary: 'auto' } }),
    );
    return (answer.output as Record<string, unknown>[])[0] ?? {};
  }

  const errorOf = async (response: Response) => ({
    status: response.status,
    ...((await jsonOf(response)).error as { message: string; code: string | null; param: string | null }),
  });

  it('gives its reasoning encrypted when asked to, and takes it back unchanged', async () => {
    const item = await reasoningItem();
    expect(item).toMatchObject({
      type: 'reasoning',
      id: 'rs_fake_0',
      summary: [{ type: 'summary_text', text: 'Greet back.' }],
      encrypted_content: expect.stringMatching(/^fake-encrypted\./),
    });
    const next = await post('/v1/responses', { ...stateless, input: [{ role: 'user', content: 'Hi' }, item] });
    expect(next.status).toBe(200);
  });

  it('refuses encrypted content it did not issue, and ids it must look up but never stored', async () => {
    const { encrypted_content: issued, ...withoutState } = await reasoningItem();
    const forged = `${String(issued).slice(0, -2)}AA`;
    const refusals = [
      [{ ...stateless, input: [{ ...withoutState, encrypted_content: forged }] }, 400, 'invalid_encrypted_content'],
      [{ ...stateless, input: [withoutState] }, 404, 'Items are not persisted when `store` is set to false'],
      [{ model: 'm', input: [{ type: 'item_reference', id: 'rs_elsewhere_1' }] }, 404, "Item with id 'rs_elsewhere_1'"],
    ] as const;
    for (const [body, status, text] of refusals) {
      const error = await errorOf(await post('/v1/responses', body));
      expect(error.status).toBe(status);
      expect(`${error.code} ${error.message}`).toContain(text);
    }
    const stored = await post('/v1/responses', { model: 'm', input: [{ type: 'item_reference', id: 'rs_fake_0' }] });
    expect(stored.status).toBe(200);
  });
});
