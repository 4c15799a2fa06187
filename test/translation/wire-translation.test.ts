import { describe, expect, it } from 'vitest';
import { catalogModels } from '../../shared/catalog/catalog-data.ts';
import { GatewayError } from '../../shared/http/gateway-error.ts';
import { runTransformer } from '../../shared/streams/event-transformer.ts';
import type { ClientChunk } from '../../shared/streams/relayed-event.ts';
import { everyHop } from '../../shared/translation/client-reach/every-hop.ts';
import type { TranslationContext } from '../../shared/translation/translation-hop.ts';
import { translateRequest } from '../../shared/translation/wire-translation.ts';
import { anthropicMessagesClientWire } from '../../shared/wires/anthropic-messages/anthropic-messages-client-wire.ts';
import { anthropicMessagesUpstreamWire } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import type { ClientWireFormat, WireRequest } from '../../shared/wires/client-wire-format.ts';
import { openaiChatClientWire } from '../../shared/wires/openai-chat/openai-chat-client-wire.ts';
import { openaiChatUpstreamWire } from '../../shared/wires/openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesClientWire } from '../../shared/wires/openai-responses/openai-responses-client-wire.ts';
import { readJsonFixture, readTextFixture, splitSseText } from '../support/sse-fixtures.ts';
import { expectGatewayError } from './chat-to-messages/translate-fixture.ts';
import { responsesEvents } from './responses-to-chat/translate-fixture.ts';

function catalogEntry(publicId: string) {
  const entry = catalogModels.find((model) => model.publicId === publicId);
  if (!entry) throw new Error(`no catalog entry ${publicId}`);
  return entry;
}

const k3 = catalogEntry('alpha/alpha-k3');
const k27 = catalogEntry('alpha/alpha-k2.7-code');
const context: Omit<TranslationContext, 'nearestTheClient'> = {
  requestId: 'req-1',
  publicModel: 'alpha/alpha-k2.7-code',
  upstreamModel: 'alpha-for-coding',
  outputAllowance: 8192,
  createdAt: new Date('2026-01-01T00:00:00Z'),
};
const address = (innerPath: string) => ({ innerPath, query: new URLSearchParams() });

/** The body as the client wire reads it: the typed request every later stage reads. */
function clientRequest<Request extends WireRequest>(
  wire: Pick<ClientWireFormat<Request, unknown>, 'parseRequest'>,
  body: object,
) {
  return wire.parseRequest(body as Record<string, unknown>, address('/v1/any'));
}

/** What a client receives of an upstream stream, run through the translation as the relay runs it. */
function streamed(
  translation: ReturnType<typeof translateRequest>,
  sseText: string,
  parse: typeof anthropicMessagesUpstreamWire.parseEvent,
): string {
  const out: ClientChunk[] = [];
  const run = runTransformer(translation.streamToClient(), (chunk) => out.push(chunk));
  for (const raw of splitSseText(sseText)) {
    run.push({ event: raw.message ? parse(raw.message) : undefined, bytes: raw.bytes });
  }
  run.end();
  return out.map((chunk) => (typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk))).join('');
}

describe('a pass-through', () => {
  const body = {
    model: 'openai/gpt-test',
    messages: [{ role: 'user', content: 'hi', name: 'dana' }],
    logit_bias: { '50256': -100 },
    vendor_extension: { nested: [1, 2] },
  };

  it('sends the typed request on with every field the client sent', () => {
    const translation = translateRequest(
      clientRequest(openaiChatClientWire, body),
      { clientWire: openaiChatClientWire, upstreamWire: openaiChatUpstreamWire, catalog: undefined, hops: everyHop },
      context,
    );
    expect(translation.upstreamRequest).toEqual(body);
    expect(translation.answerBody('{"exact":"text"}', { exact: 'text' })).toBe('{"exact":"text"}');
    expect(translation.errorBody('{"error":{"message":"no"}}')).toBe('{"error":{"message":"no"}}');
  });

  it("applies the model's chat rules: the reasoning effort, default filled in (K3 route)", () => {
    const translation = translateRequest(
      clientRequest(openaiChatClientWire, { ...body, model: 'alpha/alpha-k3' }),
      { clientWire: openaiChatClientWire, upstreamWire: openaiChatUpstreamWire, catalog: k3, hops: everyHop },
      context,
    );
    expect(translation.upstreamRequest).toMatchObject({
      reasoning_effort: 'high',
      vendor_extension: { nested: [1, 2] },
    });
  });
});

describe("the model's thinking rule", () => {
  it("is checked once, on the client's own request, whatever the route translates", () => {
    expectGatewayError(
      () =>
        translateRequest(
          clientRequest(openaiChatClientWire, {
            model: 'alpha/alpha-k2.7-code',
            messages: [{ role: 'user', content: 'hi' }],
            thinking: { type: 'disabled' },
          }),
          {
            clientWire: openaiChatClientWire,
            upstreamWire: anthropicMessagesUpstreamWire,
            catalog: k27,
            hops: everyHop,
          },
          context,
        ),
      400,
      'thinking_required',
    );
    // On a Responses client, before `reasoning.effort` becomes a chat effort the route does not know.
    expectGatewayError(
      () =>
        translateRequest(
          clientRequest(openaiResponsesClientWire, {
            model: 'alpha/alpha-k3',
            input: 'hi',
            reasoning: { effort: 'none' },
          }),
          { clientWire: openaiResponsesClientWire, upstreamWire: openaiChatUpstreamWire, catalog: k3, hops: everyHop },
          context,
        ),
      400,
      'thinking_required',
    );
  });
});

describe('Responses to a messages-format upstream, through the chat hub (K2.7)', () => {
  const translation = translateRequest(
    clientRequest(openaiResponsesClientWire, {
      model: 'alpha/alpha-k2.7-code',
      input: 'Weather in Paris?',
      instructions: 'Be brief.',
      stream: true,
    }),
    {
      clientWire: openaiResponsesClientWire,
      upstreamWire: anthropicMessagesUpstreamWire,
      catalog: k27,
      hops: everyHop,
    },
    context,
  );

  it('sends a messages request, thinking on and the output allowance as max_tokens', () => {
    expect(translation.upstreamRequest).toEqual({
      model: 'alpha-for-coding',
      max_tokens: 8192,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      thinking: { type: 'enabled', budget_tokens: 4096 },
      stream: true,
    });
  });

  it('brings a whole answer back through both hops as a Responses response', async () => {
    const answer = await readJsonFixture('translation/chat-to-messages', 'response-tool-use.json');
    const response = JSON.parse(translation.answerBody(JSON.stringify(answer), answer));
    expect(response).toMatchObject({ id: 'resp_req-1', object: 'response', instructions: 'Be brief.' });
    expect(response.output.map((item: { type: string }) => item.type)).toContain('function_call');
  });

  it("refuses an answer that is not the upstream wire's as an upstream fault", () => {
    expectGatewayError(() => translation.answerBody('[]', []), 502, 'upstream_invalid_response');
  });

  it("brings an upstream error back in the client's envelope", () => {
    const body = translation.errorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(JSON.parse(body)).toEqual({
      error: { message: 'Overloaded', type: 'overloaded_error', code: null, param: null },
    });
  });

  it('brings a stream back through both hops, written once by the Responses encoder', async () => {
    const upstreamText = await readTextFixture('translation/chat-to-messages', 'thinking-then-text-stream.sse');
    const events = responsesEvents(streamed(translation, upstreamText, anthropicMessagesUpstreamWire.parseEvent));
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
  });

  it("ends a failing stream with the client wire's own error event", () => {
    const failure = translation.streamFailure(new GatewayError(502, 'upstream_interrupted', 'Interrupted.'));
    expect(failure).toBe(
      'event: error\ndata: {"type":"error","code":"upstream_interrupted","message":"Interrupted.","param":null}\n\n',
    );
  });
});

describe("thinking mode's rules, one rule for every route to K2.7", () => {
  const messagesRoute = {
    clientWire: anthropicMessagesClientWire,
    hops: everyHop,
    upstreamWire: anthropicMessagesUpstreamWire,
    catalog: k27,
  };
  const chatRoute = {
    clientWire: openaiChatClientWire,
    upstreamWire: anthropicMessagesUpstreamWire,
    catalog: k27,
    hops: everyHop,
  };

  it('turn thinking on in a messages client`s own request, passed through with every other field', () => {
    const translation = translateRequest(
      clientRequest(anthropicMessagesClientWire, {
        model: 'alpha/alpha-k2.7-code',
        max_tokens: 4000,
        messages: [{ role: 'user', content: 'hi' }],
        vendor_extension: true,
      }),
      messagesRoute,
      context,
    );
    expect(translation.upstreamRequest).toEqual({
      model: 'alpha/alpha-k2.7-code',
      max_tokens: 4000,
      messages: [{ role: 'user', content: 'hi' }],
      vendor_extension: true,
      thinking: { type: 'enabled', budget_tokens: 2000 },
    });
  });

  it('refuse forced tool use alike, whether a messages client or a translated chat client asks for it', () => {
    const tools = { messages: [{ role: 'user', content: 'hi' }], model: 'alpha/alpha-k2.7-code' };
    expectGatewayError(
      () =>
        translateRequest(
          clientRequest(anthropicMessagesClientWire, {
            ...tools,
            tools: [{ name: 'f', input_schema: { type: 'object' } }],
            tool_choice: { type: 'any' },
          }),
          messagesRoute,
          context,
        ),
      400,
      'forced_tool_choice_unsupported',
    );
    expectGatewayError(
      () =>
        translateRequest(
          clientRequest(openaiChatClientWire, {
            ...tools,
            tools: [{ type: 'function', function: { name: 'f' } }],
            tool_choice: 'required',
          }),
          chatRoute,
          context,
        ),
      400,
      'forced_tool_choice_unsupported',
    );
  });

  it('leave a messages client on a chat route (K3) to the chat rules: the reasoning effort', () => {
    const translation = translateRequest(
      clientRequest(anthropicMessagesClientWire, {
        model: 'alpha/alpha-k3',
        max_tokens: 300,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'f', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any' },
      }),
      { clientWire: anthropicMessagesClientWire, upstreamWire: openaiChatUpstreamWire, catalog: k3, hops: everyHop },
      context,
    );
    expect(translation.upstreamRequest).toMatchObject({ reasoning_effort: 'high', tool_choice: 'required' });
  });
});
