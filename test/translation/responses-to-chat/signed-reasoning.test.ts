import { describe, expect, it } from 'vitest';
import { catalogModels } from '../../../shared/catalog/catalog-data.ts';
import { parseRequest } from '../../../shared/http/parse-request.ts';
import { runTransformer } from '../../../shared/streams/event-transformer.ts';
import type { ClientChunk } from '../../../shared/streams/relayed-event.ts';
import { convertMessagesAnswerToChat } from '../../../shared/translation/chat-to-messages/convert-from-messages-answer.ts';
import { everyHop } from '../../../shared/translation/client-reach/every-hop.ts';
import { convertChatCompletionToResponse } from '../../../shared/translation/responses-to-chat/convert-from-chat-completion.ts';
import { convertResponsesRequestToChat } from '../../../shared/translation/responses-to-chat/convert-to-chat-request.ts';
import {
  decodeReasoningState,
  encodeReasoningState,
} from '../../../shared/translation/responses-to-chat/reasoning-state.ts';
import { translateRequest } from '../../../shared/translation/wire-translation.ts';
import { parseMessagesAnswer } from '../../../shared/wires/anthropic-messages/anthropic-messages-answer.ts';
import { anthropicMessagesUpstreamWire } from '../../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { parseChatAnswer } from '../../../shared/wires/openai-chat/openai-chat-answer.ts';
import { openaiResponsesClientWire } from '../../../shared/wires/openai-responses/openai-responses-client-wire.ts';
import { translatableResponsesRequestSchema } from '../../../shared/wires/openai-responses/openai-responses-request.ts';
import { readTextFixture, splitSseText } from '../../support/sse-fixtures.ts';
import { chatPayloads, messagesToChat } from '../chat-to-messages/translate-fixture.ts';
import { responsesEvents } from './translate-fixture.ts';

/**
 * Signed thinking through the Responses translation (responses → chat → messages, K2.7): the upstream's thinking and
 * redacted thinking blocks travel in a reasoning item's `encrypted_content` and come back, unchanged, as the next
 * assistant message's `thinking_blocks`, so a strict upstream's tool loop goes on.
 */
const k27 = catalogModels.find((model) => model.publicId === 'alpha/alpha-k2.7-code');
const signed = { type: 'thinking' as const, thinking: 'Call get_weather.', signature: 'EqQBsig' };
const redacted = { type: 'redacted_thinking' as const, data: 'EmwKAhgBredacted' };
const encryptedForm = { customToolNames: new Set<string>(), reasoningAs: 'summary' as const, encryptedReasoning: true };

describe('the reasoning state', () => {
  it('keeps signed and redacted blocks, and drops what could not go back signed', () => {
    expect(decodeReasoningState(encodeReasoningState({ text: 'x', thinkingBlocks: [signed, redacted] }))).toEqual({
      text: 'x',
      thinkingBlocks: [signed, redacted],
    });
    expect(decodeReasoningState(encodeReasoningState({ text: 'x', thinkingBlocks: [] }))).toEqual({ text: 'x' });
    const unsigned = `gateway-reasoning.v1.${Buffer.from(
      JSON.stringify({ text: 'x', thinkingBlocks: [{ type: 'thinking', thinking: 'x' }, redacted] }),
    ).toString('base64url')}`;
    expect(decodeReasoningState(unsigned)).toEqual({ text: 'x', thinkingBlocks: [redacted] });
    const malformed = `gateway-reasoning.v1.${Buffer.from(JSON.stringify({ text: 'x', thinkingBlocks: [{ type: 'x' }] })).toString('base64url')}`;
    expect(decodeReasoningState(malformed)).toBeUndefined();
  });
});

describe('a whole answer', () => {
  it('carries the blocks of a K2.7 answer in the reasoning item`s encrypted_content', () => {
    const chat = convertMessagesAnswerToChat(
      parseMessagesAnswer({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'alpha-for-coding',
        content: [redacted, signed, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 20 },
      }),
      { id: 'chatcmpl-1', model: 'alpha/alpha-k2.7-code', created: 1 },
    );
    const response = convertChatCompletionToResponse(parseChatAnswer(JSON.parse(JSON.stringify(chat))), {
      id: 'resp_1',
      model: 'alpha/alpha-k2.7-code',
      createdAt: 1,
      form: encryptedForm,
    });
    const [reasoning] = response.output as { type: string; encrypted_content?: string }[];
    expect(reasoning?.type).toBe('reasoning');
    expect(decodeReasoningState(reasoning?.encrypted_content)).toEqual({
      text: 'Call get_weather.',
      thinkingBlocks: [redacted, signed],
    });
  });
});

describe('a stream through both hops', () => {
  /** The recorded K2.7 stream through the route's hops as the relay composes them, asked for encrypted reasoning. */
  async function streamed(fixture: string): Promise<ReturnType<typeof responsesEvents>> {
    const request = openaiResponsesClientWire.parseRequest(
      {
        model: 'alpha/alpha-k2.7-code',
        input: 'Weather in Oslo?',
        stream: true,
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { summary: 'auto' },
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
      },
      { innerPath: '/v1/responses', query: new URLSearchParams() },
    );
    const translation = translateRequest(
      request,
      {
        clientWire: openaiResponsesClientWire,
        upstreamWire: anthropicMessagesUpstreamWire,
        catalog: k27,
        hops: everyHop,
      },
      {
        requestId: 'req-1',
        publicModel: 'alpha/alpha-k2.7-code',
        upstreamModel: 'alpha-for-coding',
        outputAllowance: 4096,
        createdAt: new Date(0),
      },
    );
    const out: ClientChunk[] = [];
    const run = runTransformer(translation.streamToClient(), (chunk) => out.push(chunk));
    for (const raw of splitSseText(await readTextFixture('translation/chat-to-messages', fixture))) {
      run.push({
        event: raw.message ? anthropicMessagesUpstreamWire.parseEvent(raw.message) : undefined,
        bytes: raw.bytes,
      });
    }
    run.end();
    return responsesEvents(
      out.map((chunk) => (typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk))).join(''),
    );
  }

  it('closes the reasoning item with every block the upstream signed, before the tool call opens', async () => {
    const events = await streamed('redacted-thinking-tool-call-stream.sse');
    const done = events.filter((event) => event.type === 'response.output_item.done');
    const reasoning = done[0]?.item as { type: string; encrypted_content: string; summary: { text: string }[] };
    expect(reasoning.type).toBe('reasoning');
    expect(reasoning.summary[0]?.text).toBe('The user wants the weather in Oslo; call get_weather.');
    expect(decodeReasoningState(reasoning.encrypted_content)).toEqual({
      text: 'The user wants the weather in Oslo; call get_weather.',
      thinkingBlocks: [
        { type: 'redacted_thinking', data: expect.stringMatching(/^EmwKAhgB/) },
        {
          type: 'thinking',
          thinking: 'The user wants the weather in Oslo; call get_weather.',
          signature: 'EqQBCgIYAhIMk3Xh0fHqCmVwJvAeGgwQ4Y8jRVNYbWJdDnYiMLgtA9u4',
        },
      ],
    });
    expect(done[1]?.item).toMatchObject({ type: 'function_call', name: 'get_weather' });
  });
});

describe('the chat hop`s stream, read by a hop', () => {
  it('tells each block in a chunk of its own as it closes, and not again with the finish reason', async () => {
    const asTheyClose = messagesToChat({ thinkingBlocksAsTheyClose: true });
    const text =
      splitSseText(await readTextFixture('translation/chat-to-messages', 'redacted-thinking-tool-call-stream.sse'))
        .map((raw) => (raw.message ? asTheyClose.push(raw.message) : ''))
        .join('') + asTheyClose.end();
    const told = chatPayloads(text).flatMap((payload) => {
      const choice = (
        payload as { choices?: { delta?: { thinking_blocks?: unknown[] }; finish_reason?: string | null }[] }
      ).choices?.[0];
      return choice?.delta?.thinking_blocks
        ? [{ blocks: choice.delta.thinking_blocks, finish: choice.finish_reason }]
        : [];
    });
    expect(told).toEqual([
      { blocks: [{ type: 'redacted_thinking', data: expect.any(String) }], finish: null },
      { blocks: [expect.objectContaining({ type: 'thinking', signature: expect.any(String) })], finish: null },
    ]);
  });
});

describe('the next turn', () => {
  const read = (body: Record<string, unknown>) =>
    convertResponsesRequestToChat(
      parseRequest(translatableResponsesRequestSchema, { model: 'alpha/alpha-k2.7-code', ...body }),
    ).request;
  const call = { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' };

  it('gives the blocks back as the assistant message`s thinking_blocks, in order, before its tool call', () => {
    const reasoningItem = (state: Parameters<typeof encodeReasoningState>[0]) => ({
      type: 'reasoning',
      summary: [],
      encrypted_content: encodeReasoningState(state),
    });
    const { messages } = read({
      input: [
        { role: 'user', content: 'Weather in Oslo?' },
        reasoningItem({ text: '', thinkingBlocks: [redacted] }),
        reasoningItem({ text: 'Call get_weather.', thinkingBlocks: [signed] }),
        call,
        { type: 'function_call_output', call_id: 'call_1', output: 'cold' },
      ],
    });
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: 'Call get_weather.',
      thinking_blocks: [redacted, signed],
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    });
  });

  it('drops blocks waiting for an assistant message when a user message comes first', () => {
    const { messages } = read({
      input: [
        {
          type: 'reasoning',
          summary: [],
          encrypted_content: encodeReasoningState({ text: 'x', thinkingBlocks: [signed] }),
        },
        { role: 'user', content: 'Never mind.' },
      ],
    });
    expect(messages).toEqual([{ role: 'user', content: 'Never mind.' }]);
  });
});
