import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../shared/http/parse-request.ts';
import { convertChatRequestToMessages } from '../../../shared/translation/chat-to-messages/convert-to-messages-request.ts';
import { applyReasoningEffort } from '../../../shared/translation/reasoning-effort.ts';
import {
  convertResponsesRequestToChat,
  responseSettingsOf,
} from '../../../shared/translation/responses-to-chat/convert-to-chat-request.ts';
import { translatableChatRequestSchema } from '../../../shared/wires/openai-chat/openai-chat-request.ts';
import { translatableResponsesRequestSchema } from '../../../shared/wires/openai-responses/openai-responses-request.ts';
import { expectGatewayError } from '../chat-to-messages/translate-fixture.ts';

const model = 'alpha/alpha-k3';
/** A Responses request read as the hop reads it, with the Responses wire's translatable schema. */
const read = (body: Record<string, unknown>) => parseRequest(translatableResponsesRequestSchema, { model, ...body });
/** The output allowance admission reserves: what goes upstream as `max_tokens` where the client states none. */
const outputAllowance = 3_000;
const convert = (body: Record<string, unknown>) =>
  convertResponsesRequestToChat(read(body), { maxTokensDefault: outputAllowance });

const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  strict: true,
};

const chatWeatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: weatherTool.parameters,
    strict: true,
  },
};

describe('convertResponsesRequestToChat: input', () => {
  it('turns string input, instructions and max_output_tokens into a system and a user message with max_tokens', () => {
    expect(convert({ input: 'Hello', instructions: 'Be brief.', max_output_tokens: 256 })).toEqual({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
      max_tokens: 256,
    });
  });

  it('streams with the usage chunk asked for, since response.completed carries usage', () => {
    expect(convert({ input: 'Hello', stream: true })).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: outputAllowance,
    });
    expect(convert({ input: 'Hello', stream: false })).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: false,
      max_tokens: outputAllowance,
    });
  });

  it('accepts message items in the easy and the typed form, and resent assistant output as history', () => {
    const request = convert({
      input: [
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: 'What is 2 + 2?' },
        {
          type: 'message',
          id: 'msg_prev_0',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: '4', annotations: [] }],
        },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'And times 3?' },
            { type: 'input_text', text: ' Show the steps.' },
          ],
        },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] },
        { role: 'system', content: [{ type: 'input_text', text: 'Stay polite.' }] },
      ],
    });
    expect(request.messages).toEqual([
      // Compatible chat upstreams do not all know `developer`.
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: 'What is 2 + 2?' },
      { role: 'assistant', content: '4' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And times 3?' },
          { type: 'text', text: ' Show the steps.' },
        ],
      },
      { role: 'assistant', content: 'I cannot help with that.' },
      { role: 'system', content: 'Stay polite.' },
    ]);
  });

  it.each([
    ['an image part', { role: 'user', content: [{ type: 'input_image', image_url: 'https://example.test/cat.png' }] }],
    ['a file part', { role: 'user', content: [{ type: 'input_file', file_id: 'file-abc' }] }],
  ])('refuses %s by its place and type', (_name, item) => {
    const error = expectGatewayError(
      () => convert({ input: [{ role: 'user', content: 'Look:' }, item] }),
      400,
      'unsupported_responses_input',
    );
    expect(error.message).toMatch(/^input\.1\.content\.0 is a content part of type input_(image|file)/);
  });

  it.each([
    ['function_call', { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' }],
    ['function_call_output', { type: 'function_call_output', call_id: 'call_1', output: '18°C' }],
    ['item_reference', { type: 'item_reference', id: 'msg_abc' }],
    ['reasoning', { type: 'reasoning', id: 'rs_abc', summary: [] }],
  ])('refuses an input item of type %s by name', (type, item) => {
    const error = expectGatewayError(
      () => convert({ input: [{ role: 'user', content: 'Hi' }, item] }),
      400,
      'unsupported_responses_input',
    );
    expect(error.message).toContain(`input.1 is an item of type ${type}`);
    expect(error.message).toContain('Send input as a string');
  });

  it('refuses a malformed message as invalid, not as another item type', () => {
    const error = expectGatewayError(
      () => convert({ input: [{ type: 'message', role: 'tool', content: 'x' }] }),
      400,
      'invalid_request',
    );
    expect(error.message).toContain('input.0');
  });

  it('requires input, and at least one message', () => {
    expectGatewayError(() => convert({ instructions: 'Be brief.' }), 400, 'invalid_request');
    expectGatewayError(() => convert({ input: [] }), 400, 'invalid_request');
  });
});

describe('convertResponsesRequestToChat: parameters', () => {
  it('passes sampling settings and moves reasoning.effort to reasoning_effort', () => {
    expect(
      convert({ input: 'Hi', temperature: 0.2, top_p: 0.9, reasoning: { effort: 'max', summary: 'auto' } }),
    ).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: outputAllowance,
      temperature: 0.2,
      top_p: 0.9,
      reasoning_effort: 'max',
    });
  });

  it('ignores store (the gateway stores nothing) and drops fields that change no answer', () => {
    expect(
      convert({
        input: 'Hi',
        store: true,
        metadata: { trace: 't1' },
        user: 'user-1',
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
        service_tier: 'auto',
        text: { format: { type: 'text' }, verbosity: 'low' },
      }),
    ).toEqual({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: outputAllowance });
  });

  it('translates function tools, the tool choice and parallel_tool_calls into the nested chat form', () => {
    const request = convert({
      input: 'Weather?',
      tools: [weatherTool],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(request.tools).toEqual([chatWeatherTool]);
    expect(request.tool_choice).toBe('auto');
    expect(request.parallel_tool_calls).toBe(false);
    const bare = convert({ input: 'Time?', tools: [{ type: 'function', name: 'get_time' }] });
    expect(bare.tools).toEqual([{ type: 'function', function: { name: 'get_time' } }]);
  });

  it.each([
    ['none', 'none'],
    ['required', 'required'],
    [
      { type: 'function', name: 'get_weather' },
      { type: 'function', function: { name: 'get_weather' } },
    ],
  ])('maps tool_choice %j', (choice, expected) => {
    expect(convert({ input: 'Weather?', tools: [weatherTool], tool_choice: choice }).tool_choice).toEqual(expected);
  });

  it('leaves tool_choice and parallel_tool_calls out without tools, where chat upstreams refuse them', () => {
    const request = convert({ input: 'Hi', tool_choice: 'none', parallel_tool_calls: true });
    expect(request).toEqual({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: outputAllowance });
  });

  it('refuses hosted tools and tool choices chat has no form for', () => {
    const tool = expectGatewayError(
      () => convert({ input: 'Hi', tools: [weatherTool, { type: 'web_search' }] }),
      400,
      'unsupported_tool',
    );
    expect(tool.message).toContain('tools.1 is a tool of type web_search');
    expectGatewayError(
      () =>
        convert({
          input: 'Hi',
          tools: [weatherTool],
          tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'get_weather' }] },
        }),
      400,
      'unsupported_tool_choice',
    );
    expectGatewayError(
      () => convert({ input: 'Hi', tools: [weatherTool], tool_choice: 'sometimes' }),
      400,
      'invalid_tool_choice',
    );
    expectGatewayError(
      () => convert({ input: 'Hi', tools: [weatherTool], tool_choice: { type: 'function' } }),
      400,
      'invalid_tool_choice',
    );
  });

  it('translates text.format to response_format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    expect(
      convert({ input: 'Hi', text: { format: { type: 'json_schema', name: 'reply', schema, strict: true } } })
        .response_format,
    ).toEqual({ type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } });
    expect(convert({ input: 'Hi', text: { format: { type: 'json_object' } } }).response_format).toEqual({
      type: 'json_object',
    });
    expectGatewayError(
      () => convert({ input: 'Hi', text: { format: { type: 'json_schema', name: 'reply' } } }),
      400,
      'invalid_request',
    );
    expectGatewayError(
      () => convert({ input: 'Hi', text: { format: { type: 'grammar' } } }),
      400,
      'unsupported_parameter',
    );
  });

  it.each([
    ['previous_response_id', { previous_response_id: 'resp_abc' }],
    ['conversation', { conversation: 'conv_abc' }],
    ['conversation', { conversation: { id: 'conv_abc' } }],
    ['prompt', { prompt: { id: 'pmpt_abc', version: '2' } }],
    ['background', { background: true }],
  ])('refuses server-stored state: %s', (field, state) => {
    const error = expectGatewayError(() => convert({ input: 'Continue', ...state }), 400, 'unsupported_parameter');
    expect(error.message).toMatch(new RegExp(`^${field} is not supported`));
  });

  it('refuses previous_response_id even without input, for the clearer reason', () => {
    expectGatewayError(() => convert({ previous_response_id: 'resp_abc' }), 400, 'unsupported_parameter');
  });
});

describe('the translated request on the next stages of the route', () => {
  const alphaPolicy = { reasoningEffort: { supported: ['low', 'high', 'max'], default: 'high' } };

  it('takes the catalog reasoning rules in chat form (K3 route)', () => {
    expect(applyReasoningEffort(convert({ input: 'Hi' }), alphaPolicy)).toMatchObject({ reasoning_effort: 'high' });
    expect(applyReasoningEffort(convert({ input: 'Hi', reasoning: { effort: 'low' } }), alphaPolicy)).toMatchObject({
      reasoning_effort: 'low',
    });
    // `reasoning.effort: "none"` becomes `reasoning_effort: "none"`, not an effort of the route. (Before this, the
    // route refuses it as switching thinking off, on the client's own request: see wire-translation.test.ts.)
    expectGatewayError(
      () => applyReasoningEffort(convert({ input: 'Hi', reasoning: { effort: 'none' } }), alphaPolicy),
      400,
      'invalid_reasoning_effort',
    );
  });

  it('is accepted by the chat-to-messages translator (K2.7 route)', () => {
    const chat = convert({ input: 'Hello', instructions: 'Be brief.', max_output_tokens: 4096, stream: true });
    expect(
      convertChatRequestToMessages(parseRequest(translatableChatRequestSchema, chat), {
        upstreamModel: 'alpha-for-coding',
        maxTokensDefault: 32_000,
        thinking: { type: 'enabled' },
      }),
    ).toEqual({
      model: 'alpha-for-coding',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      thinking: { type: 'enabled', budget_tokens: 2048 },
      stream: true,
    });
  });
});

describe('responseSettingsOf', () => {
  it('repeats the request settings the way the vendor response does', () => {
    expect(
      responseSettingsOf(
        read({
          input: 'Hi',
          instructions: 'Be brief.',
          max_output_tokens: 64,
          metadata: { trace: 't1' },
          temperature: 0.5,
          tools: [weatherTool],
          tool_choice: { type: 'function', name: 'get_weather' },
          reasoning: { effort: 'low' },
        }),
      ),
    ).toEqual({
      instructions: 'Be brief.',
      max_output_tokens: 64,
      metadata: { trace: 't1' },
      parallel_tool_calls: true,
      reasoning: { effort: 'low', summary: null },
      temperature: 0.5,
      tool_choice: { type: 'function', name: 'get_weather' },
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: weatherTool.parameters,
          strict: true,
        },
      ],
      top_p: null,
    });
  });
});
