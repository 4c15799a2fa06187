import { describe, expect, it } from 'vitest';
import { runTransformer } from '../../../shared/streams/event-transformer.ts';
import type { ClientChunk } from '../../../shared/streams/relayed-event.ts';
import { everyHop } from '../../../shared/translation/client-reach/every-hop.ts';
import type { TranslationContext } from '../../../shared/translation/translation-hop.ts';
import { clientWiresReaching, translationPath } from '../../../shared/translation/translation-paths.ts';
import { translateRequest } from '../../../shared/translation/wire-translation.ts';
import { anthropicMessagesClientWire } from '../../../shared/wires/anthropic-messages/anthropic-messages-client-wire.ts';
import { converseRequestSchema } from '../../../shared/wires/bedrock-converse/bedrock-converse-request.ts';
import { bedrockConverseUpstreamWire } from '../../../shared/wires/bedrock-converse/bedrock-converse-upstream-wire.ts';
import type { ClientWireFormat, WireRequest } from '../../../shared/wires/client-wire-format.ts';
import { openaiChatClientWire } from '../../../shared/wires/openai-chat/openai-chat-client-wire.ts';
import { openaiResponsesClientWire } from '../../../shared/wires/openai-responses/openai-responses-client-wire.ts';
import { parseSseText, readJsonFixture, readTextFixture, splitSseText } from '../../support/sse-fixtures.ts';
import { responsesEvents } from '../responses-to-chat/translate-fixture.ts';
import { fixtures } from './translate-fixture.ts';

const context: Omit<TranslationContext, 'nearestTheClient'> = {
  requestId: 'req-1',
  publicModel: 'bedrock/nova-lite',
  upstreamModel: 'amazon.nova-lite-v1:0',
  outputAllowance: 300,
  createdAt: new Date('2026-01-01T00:00:00Z'),
};
const address = { innerPath: '/v1/any', query: new URLSearchParams() };
const upstreamWire = bedrockConverseUpstreamWire;

function clientRequest<Request extends WireRequest>(
  wire: Pick<ClientWireFormat<Request, unknown>, 'parseRequest'>,
  body: object,
) {
  return wire.parseRequest(body as Record<string, unknown>, address);
}

/** What a client receives of a recorded Converse stream, relayed through the translation as the relay runs it. */
function streamed(translation: ReturnType<typeof translateRequest>, text: string): string {
  const out: ClientChunk[] = [];
  const run = runTransformer(translation.streamToClient(), (chunk) => out.push(chunk));
  for (const raw of splitSseText(text)) {
    run.push({ event: raw.message ? upstreamWire.parseEvent(raw.message) : undefined, bytes: raw.bytes });
  }
  run.end();
  return out.map((chunk) => (typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk))).join('');
}

/** The body the wire sends for a translated request: what Converse must accept. */
function sentBody(translation: ReturnType<typeof translateRequest>): unknown {
  const request = upstreamWire.buildUpstreamRequest({
    target: { baseUrl: 'https://bedrock-runtime.eu-west-1.amazonaws.com', credential: '' },
    body: translation.upstreamRequest,
    upstreamModel: context.upstreamModel,
    stream: true,
    operation: 'generate',
    outputCap: context.outputAllowance,
  });
  expect(request.url).toBe(
    'https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse-stream',
  );
  return JSON.parse(request.body);
}

const weatherTool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } };

describe('Converse through the chat hub', () => {
  it('is reached from chat in one hop and from Responses and messages in two', () => {
    expect(translationPath('openai-chat', 'bedrock-converse')).toEqual(['chat-to-converse']);
    expect(translationPath('openai-responses', 'bedrock-converse')).toEqual(['responses-to-chat', 'chat-to-converse']);
    expect(translationPath('anthropic-messages', 'bedrock-converse')).toEqual(['messages-to-chat', 'chat-to-converse']);
    expect(translationPath('gemini', 'bedrock-converse')).toBeUndefined();
    expect(clientWiresReaching('bedrock-converse').sort()).toEqual([
      'anthropic-messages',
      'openai-chat',
      'openai-responses',
    ]);
  });

  it('a chat client: the request Converse takes, the output allowance as maxTokens, the answer as a chat completion', async () => {
    const translation = translateRequest(
      clientRequest(openaiChatClientWire, { model: 'bedrock/nova-lite', messages: [{ role: 'user', content: 'hi' }] }),
      { clientWire: openaiChatClientWire, upstreamWire, catalog: undefined, hops: everyHop },
      context,
    );
    const body = sentBody(translation);
    expect(converseRequestSchema.safeParse(body).success).toBe(true);
    expect(body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      inferenceConfig: { maxTokens: 300 },
    });
    const answer = await readJsonFixture(fixtures, 'answer-tool-use.json');
    expect(JSON.parse(translation.answerBody(JSON.stringify(answer), answer))).toMatchObject({
      object: 'chat.completion',
      model: 'bedrock/nova-lite',
      choices: [{ finish_reason: 'tool_calls' }],
    });
    expect(JSON.parse(translation.errorBody('{"message":"Malformed input request: #: extraneous key [x]"}'))).toEqual({
      error: { message: 'Malformed input request: #: extraneous key [x]', type: 'api_error', code: null, param: null },
    });
  });

  describe('a Responses client', () => {
    const translation = translateRequest(
      clientRequest(openaiResponsesClientWire, {
        model: 'bedrock/nova-lite',
        input: 'Weather in Paris?',
        instructions: 'Be brief.',
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }],
        stream: true,
      }),
      { clientWire: openaiResponsesClientWire, upstreamWire, catalog: undefined, hops: everyHop },
      context,
    );

    it('sends instructions as system and the allowance as maxTokens', () => {
      const body = sentBody(translation);
      expect(converseRequestSchema.safeParse(body).success).toBe(true);
      expect(body).toMatchObject({
        system: [{ text: 'Be brief.' }],
        messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
        inferenceConfig: { maxTokens: 300 },
        toolConfig: { tools: [{ toolSpec: { name: 'get_weather' } }] },
      });
    });

    it('gets a whole answer back as a Responses response with the function call', async () => {
      const answer = await readJsonFixture(fixtures, 'answer-tool-use.json');
      const response = JSON.parse(translation.answerBody(JSON.stringify(answer), answer));
      expect(response).toMatchObject({
        object: 'response',
        instructions: 'Be brief.',
        usage: { input_tokens: 375, output_tokens: 66 },
      });
      expect(response.output).toContainEqual(
        expect.objectContaining({ type: 'function_call', name: 'top_song', arguments: '{"sign":"WZPZ"}' }),
      );
    });

    it('gets the stream back through both hops, numbered, completed, with the measured usage', async () => {
      const events = responsesEvents(
        streamed(translation, await readTextFixture(fixtures, 'reasoning-text-tool-stream.sse')),
      );
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
      const completed = events.at(-1) as unknown as {
        type: string;
        response: { usage: unknown; output: { type: string }[] };
      };
      expect(completed.type).toBe('response.completed');
      expect(completed.response.usage).toMatchObject({
        input_tokens: 1436,
        input_tokens_details: { cached_tokens: 1024 },
        output_tokens: 96,
      });
      expect(completed.response.output.map((item) => item.type)).toEqual([
        'reasoning',
        'message',
        'function_call',
        'function_call',
      ]);
    });

    it('gets an exception mid-stream as its own error event', async () => {
      const events = responsesEvents(
        streamed(translation, await readTextFixture(fixtures, 'exception-mid-stream.sse')),
      );
      expect(events.slice(-2)).toMatchObject([
        { type: 'error', code: 'throttlingException', message: 'Too many tokens, please wait before trying again.' },
        { type: 'response.failed', response: { status: 'failed' } },
      ]);
    });
  });

  describe('a messages client', () => {
    const translation = translateRequest(
      clientRequest(anthropicMessagesClientWire, {
        model: 'bedrock/nova-lite',
        max_tokens: 300,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
        tool_choice: { type: 'any' },
        stream: true,
      }),
      { clientWire: anthropicMessagesClientWire, upstreamWire, catalog: undefined, hops: everyHop },
      context,
    );

    it('sends a Converse request with the forced tool choice as any', () => {
      const body = sentBody(translation);
      expect(converseRequestSchema.safeParse(body).success).toBe(true);
      expect(body).toMatchObject({
        system: [{ text: 'Be brief.' }],
        inferenceConfig: { maxTokens: 300 },
        toolConfig: { toolChoice: { any: {} } },
      });
    });

    it('gets a whole answer back as a messages answer, and an error in its envelope', async () => {
      const answer = await readJsonFixture(fixtures, 'answer-reasoning-cached.json');
      const message = JSON.parse(translation.answerBody(JSON.stringify(answer), answer));
      expect(message).toMatchObject({
        type: 'message',
        model: 'bedrock/nova-lite',
        stop_reason: 'end_turn',
        // The messages form leaves cache reads out of input_tokens: 3,012 - 2,800.
        usage: { input_tokens: 212, output_tokens: 40, cache_read_input_tokens: 2800 },
      });
      expect(message.content.map((block: { type: string }) => block.type)).toEqual([
        'thinking',
        'redacted_thinking',
        'text',
      ]);
      const error = JSON.parse(translation.errorBody('{"__type":"ThrottlingException","message":"Too many requests"}'));
      expect(error).toMatchObject({ type: 'error', error: { message: 'Too many requests' } });
    });

    it('gets the stream back through both hops as messages events, usage in message_delta', async () => {
      const text = streamed(translation, await readTextFixture(fixtures, 'reasoning-text-tool-stream.sse'));
      const events = parseSseText(text).map(
        (event) => JSON.parse(event.data) as { type: string; [key: string]: unknown },
      );
      expect(events[0]?.type).toBe('message_start');
      expect(events.at(-1)?.type).toBe('message_stop');
      const delta = events.find((event) => event.type === 'message_delta');
      expect(delta).toMatchObject({
        delta: { stop_reason: 'tool_use' },
        usage: { input_tokens: 412, output_tokens: 96, cache_read_input_tokens: 1024 },
      });
      const toolUses = events.filter(
        (event) =>
          event.type === 'content_block_start' && (event.content_block as { type: string }).type === 'tool_use',
      );
      expect(toolUses).toHaveLength(2);
    });
  });
});
