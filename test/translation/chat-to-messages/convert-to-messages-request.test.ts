import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../shared/http/parse-request.ts';
import {
  type ConvertChatRequestOptions,
  convertChatRequestToMessages,
} from '../../../shared/translation/chat-to-messages/convert-to-messages-request.ts';
import { translatableChatRequestSchema } from '../../../shared/wires/openai-chat/openai-chat-request.ts';
import { expectGatewayError } from './translate-fixture.ts';

const options: ConvertChatRequestOptions = {
  upstreamModel: 'alpha-for-coding',
  maxTokensDefault: 32_000,
};

/** A chat request read as the hop reads it, with the chat wire's translatable schema, then converted. */
const convert = (body: Record<string, unknown>, overrides: Partial<ConvertChatRequestOptions> = {}) =>
  convertChatRequestToMessages(
    parseRequest(translatableChatRequestSchema, { model: 'alpha/alpha-k2.7-code', ...body }),
    { ...options, ...overrides },
  );

const hello = [{ role: 'user', content: 'Hello' }];

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

describe('convertChatRequestToMessages: prompt', () => {
  it('sends the upstream model, the default max_tokens and the user turn', () => {
    expect(convert({ messages: hello })).toEqual({
      model: 'alpha-for-coding',
      max_tokens: 32_000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
  });

  it('gathers system and developer messages, wherever they stand, into the top-level system', () => {
    const request = convert({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Never use emoji.' },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(request.system).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: 'Answer in English.' },
      { type: 'text', text: 'Never use emoji.' },
    ]);
    // The two user messages are now adjacent, and the format requires alternation: one turn.
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'text', text: 'Again' },
        ],
      },
    ]);
  });

  it('translates a multi-turn tool loop: tool_calls → tool_use, tool results → one user turn of tool_result', () => {
    const request = convert({
      tools: [weatherTool],
      messages: [
        { role: 'system', content: 'Use tools when useful.' },
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Two cities, two calls.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Tokyo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '18°C, clear' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '24°C, rain' }] },
        { role: 'assistant', content: 'Paris is clear at 18°C; Tokyo has rain at 24°C.' },
        { role: 'user', content: 'Thanks!' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Tokyo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities, two calls.' },
          { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'call_b', name: 'get_weather', input: { location: 'Tokyo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '18°C, clear' },
          { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: '24°C, rain' }] },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Paris is clear at 18°C; Tokyo has rain at 24°C.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
    ]);
  });

  it('puts tool results before text in a merged user turn, and drops empty messages', () => {
    const request = convert({
      messages: [
        { role: 'user', content: 'List files' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '' } }],
        },
        { role: 'user', content: 'Also, hurry.' },
        { role: 'tool', tool_call_id: 'call_1', content: 'a.ts b.ts' },
        { role: 'assistant', content: null },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'List files' }] },
      // Blank arguments (a function without parameters) become an empty input object.
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'list_files', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'a.ts b.ts' },
          { type: 'text', text: 'Also, hurry.' },
        ],
      },
    ]);
  });

  it('refuses tool call arguments that are not a JSON object with invalid_tool_arguments', () => {
    for (const argumentsText of ['{"location": "Par', '[1, 2]', '"Paris"']) {
      const error = expectGatewayError(
        () =>
          convert({
            messages: [
              ...hello,
              {
                role: 'assistant',
                tool_calls: [
                  { id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: argumentsText } },
                ],
              },
            ],
          }),
        400,
        'invalid_tool_arguments',
      );
      expect(error.message).toContain('messages.1.tool_calls.0.function.arguments');
    }
  });

  it('turns data: images into base64 blocks and remote images into URL sources', () => {
    const request = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect(request.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('refuses images and parts the upstream cannot take, each with its own code', () => {
    const userParts = (part: unknown) => ({ messages: [{ role: 'user', content: [part] }] });
    expectGatewayError(
      () => convert(userParts({ type: 'image_url', image_url: { url: 'data:image/tiff;base64,AAAA' } })),
      400,
      'unsupported_image_type',
    );
    expectGatewayError(
      () => convert(userParts({ type: 'image_url', image_url: { url: 'data:image/png,rawbytes' } })),
      400,
      'invalid_image_url',
    );
    expectGatewayError(
      () => convert(userParts({ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } })),
      400,
      'invalid_image_url',
    );
    expectGatewayError(
      () => convert(userParts({ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } })),
      400,
      'unsupported_content_part',
    );
  });

  it('refuses malformed messages with invalid_request naming the field', () => {
    const error = expectGatewayError(
      () => convert({ messages: [{ role: 'tool', content: 'orphan result' }] }),
      400,
      'invalid_request',
    );
    expect(error.message).toContain('messages.0.tool_call_id');
    expectGatewayError(() => convert({ messages: [{ role: 'user', content: '' }] }), 400, 'invalid_request');
    expectGatewayError(
      () =>
        convert({ messages: [{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }] }),
      400,
      'unsupported_parameter',
    );
  });
});

describe('convertChatRequestToMessages: tools and tool_choice', () => {
  it('turns function tools into tools with input schemas', () => {
    const request = convert({
      messages: hello,
      tools: [weatherTool, { type: 'function', function: { name: 'list_files' } }],
    });
    expect(request.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        input_schema: weatherTool.function.parameters,
      },
      { name: 'list_files', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(request.tool_choice).toBeUndefined();
  });

  const withTools = { messages: hello, tools: [weatherTool] };

  it('maps auto and none, and carries parallel_tool_calls false as disable_parallel_tool_use', () => {
    expect(convert({ ...withTools, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(convert({ ...withTools, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(convert({ ...withTools, parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    // Without tools there is nothing to choose from; the upstream would refuse a dangling tool_choice.
    expect(convert({ messages: hello, tool_choice: 'auto' }).tool_choice).toBeUndefined();
  });

  it('maps forced choices to the messages forms, which the thinking-mode rule refuses for K2.7', () => {
    expect(convert({ ...withTools, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(
      convert({ ...withTools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).tool_choice,
    ).toEqual({ type: 'tool', name: 'get_weather' });
    expect(convert({ ...withTools, tool_choice: 'required', parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
  });

  it('refuses tool_choice forms it does not know', () => {
    expectGatewayError(() => convert({ ...withTools, tool_choice: 'sometimes' }), 400, 'invalid_tool_choice');
    expectGatewayError(
      () => convert({ ...withTools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto' } } }),
      400,
      'unsupported_tool_choice',
    );
  });

  it('refuses tools other than functions', () => {
    expectGatewayError(
      () => convert({ messages: hello, tools: [{ type: 'custom', custom: { name: 'grammar' } }] }),
      400,
      'invalid_request',
    );
  });
});

describe('convertChatRequestToMessages: sampling, limits and stream', () => {
  it('takes max_completion_tokens over max_tokens, and stop as stop_sequences', () => {
    expect(convert({ messages: hello, max_tokens: 500 }).max_tokens).toBe(500);
    expect(convert({ messages: hello, max_tokens: 500, max_completion_tokens: 4000 }).max_tokens).toBe(4000);
    expect(convert({ messages: hello, stop: 'END' }).stop_sequences).toEqual(['END']);
    expect(convert({ messages: hello, stop: ['\n\n', 'Human:'] }).stop_sequences).toEqual(['\n\n', 'Human:']);
    expect(convert({ messages: hello, stop: null })).not.toHaveProperty('stop_sequences');
  });

  it('passes temperature, top_p and stream, and drops chat-only fields', () => {
    const request = convert({
      messages: hello,
      temperature: 0.6,
      top_p: 0.95,
      stream: true,
      stream_options: { include_usage: true },
      user: 'member-7',
      seed: 42,
      n: 1,
    });
    expect(request).toMatchObject({ temperature: 0.6, top_p: 0.95, stream: true });
    expect(Object.keys(request).sort()).toEqual(
      ['max_tokens', 'messages', 'model', 'stream', 'temperature', 'top_p'].sort(),
    );
  });

  it('refuses what would change the answer and cannot be honoured: n > 1, logprobs, a JSON response_format', () => {
    expectGatewayError(() => convert({ messages: hello, n: 2 }), 400, 'unsupported_parameter');
    expectGatewayError(() => convert({ messages: hello, logprobs: true }), 400, 'unsupported_parameter');
    expectGatewayError(
      () => convert({ messages: hello, response_format: { type: 'json_object' } }),
      400,
      'unsupported_parameter',
    );
    expect(convert({ messages: hello, response_format: { type: 'text' } }).model).toBe('alpha-for-coding');
  });
});

describe('convertChatRequestToMessages: thinking', () => {
  it("carries the client's own thinking form and adds none itself (thinking mode is the route's rule)", () => {
    expect(convert({ messages: hello, max_tokens: 8192 }).thinking).toBeUndefined();
    const enabled = { type: 'enabled', budget_tokens: 2000 };
    expect(convert({ messages: hello, max_tokens: 4000, thinking: enabled }).thinking).toEqual(enabled);
  });
});
