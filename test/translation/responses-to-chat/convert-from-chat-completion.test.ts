import { describe, expect, it } from 'vitest';
import { convertMessagesAnswerToChat } from '../../../shared/translation/chat-to-messages/convert-from-messages-answer.ts';
import { defaultResponseSettings } from '../../../shared/translation/responses-to-chat/build-response.ts';
import { convertChatCompletionToResponse as convertParsed } from '../../../shared/translation/responses-to-chat/convert-from-chat-completion.ts';
import { endingOf, mapChatFinishReason } from '../../../shared/translation/responses-to-chat/map-chat-finish-reason.ts';
import { decodeReasoningState } from '../../../shared/translation/responses-to-chat/reasoning-state.ts';
import { parseMessagesAnswer } from '../../../shared/wires/anthropic-messages/anthropic-messages-answer.ts';
import { parseChatAnswer } from '../../../shared/wires/openai-chat/openai-chat-answer.ts';
import { chatFinishReasons } from '../../../shared/wires/openai-chat/openai-chat-finish-reason.ts';
import { readJsonFixture } from '../../support/sse-fixtures.ts';
import { expectGatewayError } from '../chat-to-messages/translate-fixture.ts';
import { fixtures, identity } from './translate-fixture.ts';

/** An upstream answer as the pipeline hands it over: its JSON read once with the chat wire's answer schema. */
const convertChatCompletionToResponse = (json: unknown, responseIdentity: typeof identity) =>
  convertParsed(parseChatAnswer(json), responseIdentity);

const completion = (message: Record<string, unknown>, finishReason: string | null, usage?: unknown) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
  ...(usage === undefined ? {} : { usage }),
});

describe('convertChatCompletionToResponse', () => {
  it('returns the reasoning as a reasoning item, the text as one message item, and the usage with its details', async () => {
    const response = convertChatCompletionToResponse(await readJsonFixture(fixtures, 'completion-text.json'), identity);
    expect(response).toEqual({
      id: 'resp_req-1',
      object: 'response',
      created_at: 1_760_000_000,
      status: 'completed',
      background: false,
      error: null,
      incomplete_details: null,
      model: 'alpha/alpha-k3',
      output: [
        {
          type: 'reasoning',
          id: 'rs_req-1_0',
          status: 'completed',
          summary: [],
          content: [{ type: 'reasoning_text', text: expect.stringContaining('Simple greeting') }],
        },
        {
          type: 'message',
          id: 'msg_req-1_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hi! My name is Alpha.', annotations: [] }],
        },
      ],
      previous_response_id: null,
      store: false,
      truncation: 'disabled',
      ...defaultResponseSettings,
      usage: {
        input_tokens: 2095,
        input_tokens_details: { cached_tokens: 1920, cache_write_tokens: 0 },
        output_tokens: 503,
        output_tokens_details: { reasoning_tokens: 490 },
        total_tokens: 2598,
      },
    });
    // Asked for as a summary and with its state, it comes as one, and the state gives the text back.
    const summarised = convertChatCompletionToResponse(await readJsonFixture(fixtures, 'completion-text.json'), {
      ...identity,
      form: { customToolNames: new Set(), reasoningAs: 'summary', encryptedReasoning: true },
    });
    const reasoning = summarised.output[0];
    if (reasoning?.type !== 'reasoning') throw new Error('expected a reasoning item first');
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: expect.stringContaining('Simple greeting') }]);
    expect(reasoning).not.toHaveProperty('content');
    expect(decodeReasoningState(reasoning.encrypted_content)?.text).toBe(reasoning.summary[0]?.text);
  });

  it("returns a custom tool's call as a custom_tool_call item with its input as text", () => {
    const patch = '*** Begin Patch\n*** End Patch';
    const response = convertChatCompletionToResponse(
      completion(
        {
          content: null,
          tool_calls: [
            {
              id: 'call_p',
              type: 'function',
              function: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) },
            },
            { id: 'call_s', type: 'function', function: { name: 'shell', arguments: '{"command":["ls"]}' } },
          ],
        },
        'tool_calls',
      ),
      {
        ...identity,
        form: { customToolNames: new Set(['apply_patch']), reasoningAs: 'content', encryptedReasoning: false },
      },
    );
    expect(response.output).toEqual([
      {
        type: 'custom_tool_call',
        id: 'ctc_req-1_0',
        call_id: 'call_p',
        name: 'apply_patch',
        input: patch,
        status: 'completed',
      },
      {
        type: 'function_call',
        id: 'fc_req-1_1',
        call_id: 'call_s',
        name: 'shell',
        arguments: '{"command":["ls"]}',
        status: 'completed',
      },
    ]);
  });

  it('returns each tool call as a function_call item with its call id and arguments, and no empty message', async () => {
    // The fixture's model reasoned first: its reasoning item comes before the calls.
    const response = convertChatCompletionToResponse(
      await readJsonFixture(fixtures, 'completion-tool-calls.json'),
      identity,
    );
    expect(response.status).toBe('completed');
    expect(response.output.slice(1)).toEqual([
      {
        type: 'function_call',
        id: 'fc_req-1_1',
        call_id: 'call_Wq8mT2xR4vKe',
        name: 'get_weather',
        arguments: '{"location": "Paris, France", "unit": "celsius"}',
        status: 'completed',
      },
      {
        type: 'function_call',
        id: 'fc_req-1_2',
        call_id: 'call_Jd3nP9sL1cYa',
        name: 'get_weather',
        arguments: '{"location": "Tokyo, Japan", "unit": "celsius"}',
        status: 'completed',
      },
    ]);
    // Not reported upstream means none of it was cached or reasoning, which the SDK types as a number.
    expect(response.usage).toEqual({
      input_tokens: 410,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 96,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 506,
    });
  });

  it('puts text before the calls, and sends blank arguments as {}', () => {
    const response = convertChatCompletionToResponse(
      completion(
        {
          content: 'Checking.',
          tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'list_open_files', arguments: '' } }],
        },
        'tool_calls',
      ),
      identity,
    );
    expect(response.output.map((item) => [item.type, item.id])).toEqual([
      ['message', 'msg_req-1_0'],
      ['function_call', 'fc_req-1_1'],
    ]);
    expect(response.output[1]).toMatchObject({ call_id: 'call_a', arguments: '{}' });
  });

  it('marks a stop by length incomplete for max_output_tokens, items included', () => {
    const response = convertChatCompletionToResponse(completion({ content: 'The sea rolls' }, 'length'), identity);
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output[0]?.status).toBe('incomplete');
  });

  it('keeps an empty answer as an empty message, and a refusal as a refusal part', () => {
    expect(convertChatCompletionToResponse(completion({ content: null }, 'stop'), identity).output).toEqual([
      {
        type: 'message',
        id: 'msg_req-1_0',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: '', annotations: [] }],
      },
    ]);
    const refused = convertChatCompletionToResponse(
      completion({ content: null, refusal: 'I cannot.' }, 'stop'),
      identity,
    );
    expect(refused.output[0]).toMatchObject({ content: [{ type: 'refusal', refusal: 'I cannot.' }] });
  });

  it('reads cache reads in the DeepSeek form and cache writes where reported, and leaves usage out when a count is missing', () => {
    const cached = convertChatCompletionToResponse(
      completion({ content: 'Hi' }, 'stop', { prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 64 }),
      identity,
    );
    expect(cached.usage?.input_tokens_details.cached_tokens).toBe(64);
    const written = convertChatCompletionToResponse(
      completion({ content: 'Hi' }, 'stop', {
        prompt_tokens: 100,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 90 },
      }),
      identity,
    );
    expect(written.usage?.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 90 });
    const partial = convertChatCompletionToResponse(
      completion({ content: 'Hi' }, 'stop', { prompt_tokens: 100 }),
      identity,
    );
    expect(partial).not.toHaveProperty('usage');
    expect(convertChatCompletionToResponse(completion({ content: 'Hi' }, 'stop'), identity)).not.toHaveProperty(
      'usage',
    );
  });

  it('repeats the request settings it is given', () => {
    const settings = { ...defaultResponseSettings, instructions: 'Be brief.', temperature: 0.3 };
    const response = convertChatCompletionToResponse(completion({ content: 'Hi' }, 'stop'), { ...identity, settings });
    expect(response).toMatchObject({ instructions: 'Be brief.', temperature: 0.3, tool_choice: 'auto' });
  });

  it.each([
    ['not an object', 'Bad Gateway'],
    ['without choices', { id: 'x', choices: [] }],
    ['with a wrong content type', completion({ content: 42 }, 'stop')],
  ])('refuses an unreadable answer %s as an upstream fault', (_name, body) => {
    expectGatewayError(() => convertChatCompletionToResponse(body, identity), 502, 'upstream_invalid_response');
  });

  it('translates a messages answer after the chat-to-messages hop (K2.7 route), the chat answer between them typed', async () => {
    const messagesAnswer = parseMessagesAnswer(
      await readJsonFixture('translation/chat-to-messages', 'response-tool-use.json'),
    );
    const chat = convertMessagesAnswerToChat(messagesAnswer, { id: 'chatcmpl-req-1', model: identity.model });
    const response = convertParsed(chat, identity);
    expect(response.output.filter((item) => item.type === 'function_call').map((item) => item.name)).toEqual([
      'get_weather',
      'get_weather',
    ]);
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(2764);
  });
});

describe('finish reasons', () => {
  it('maps every chat finish reason', () => {
    expect(Object.fromEntries(chatFinishReasons.map((reason) => [reason, mapChatFinishReason(reason)]))).toEqual({
      stop: { status: 'completed' },
      length: { status: 'incomplete', reason: 'max_output_tokens' },
      tool_calls: { status: 'completed' },
      content_filter: { status: 'incomplete', reason: 'content_filter' },
      function_call: { status: 'completed' },
    });
  });

  it('counts a reason an engine invented, or none, as completed', () => {
    expect(endingOf('eos')).toEqual({ status: 'completed' });
    expect(endingOf(null)).toEqual({ status: 'completed' });
  });
});
