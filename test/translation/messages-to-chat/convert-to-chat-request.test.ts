import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../shared/http/parse-request.ts';
import { convertMessagesRequestToChat } from '../../../shared/translation/messages-to-chat/convert-to-chat-request.ts';
import { translatableMessagesRequestSchema } from '../../../shared/wires/anthropic-messages/anthropic-messages-request.ts';
import { expectGatewayError } from '../chat-to-messages/translate-fixture.ts';

/** A messages request read as the hop reads it, with the translatable schema, then converted. */
const convert = (body: Record<string, unknown>) =>
  convertMessagesRequestToChat(
    parseRequest(translatableMessagesRequestSchema, { model: 'acme/acme-1', max_tokens: 1000, ...body }),
  );

const hello = [{ role: 'user', content: 'Hello' }];
const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('convertMessagesRequestToChat: settings', () => {
  it('carries stop sequences, sampling, metadata.user_id and stream; the chat wire writes the cap', () => {
    expect(
      convert({
        messages: hello,
        stop_sequences: ['END', ''],
        temperature: 0.5,
        top_p: 0.9,
        metadata: { user_id: 'u-1' },
        stream: true,
        service_tier: 'auto',
        thinking: { type: 'enabled', budget_tokens: 500 },
      }),
    ).toEqual({
      model: 'acme/acme-1',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
      stop: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      user: 'u-1',
    });
  });

  it('carries structured output as response_format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    expect(
      convert({ messages: hello, output_config: { format: { type: 'json_schema', schema } } }).response_format,
    ).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
  });

  it('refuses what has no chat counterpart, by name', () => {
    expectGatewayError(() => convert({ messages: hello, top_k: 40 }), 400, 'unsupported_parameter');
    expectGatewayError(() => convert({ messages: hello, container: 'cntr_1' }), 400, 'unsupported_parameter');
    expectGatewayError(
      () => convert({ messages: hello, mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }] }),
      400,
      'unsupported_parameter',
    );
    expectGatewayError(
      () => convert({ messages: hello, output_config: { format: { type: 'xml' } } }),
      400,
      'unsupported_parameter',
    );
    expectGatewayError(() => convert({ messages: hello, temperature: 1.5 }), 400, 'invalid_request');
  });
});

describe('convertMessagesRequestToChat: system and turns', () => {
  it('joins system blocks into one leading system message, dropping cache breakpoints', () => {
    const request = convert({
      system: [
        { type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: '' },
        { type: 'text', text: 'Use metric units.' },
      ],
      messages: hello,
    });
    expect(request.messages[0]).toEqual({ role: 'system', content: 'Be terse.\n\nUse metric units.' });
    expect(convert({ system: 'Plain.', messages: hello }).messages[0]).toEqual({ role: 'system', content: 'Plain.' });
  });

  it('sends images as image_url parts: base64 as a data URL, a URL as it is', () => {
    const request = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'UklGRg==' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
            { type: 'text', text: 'Which is bigger?' },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          { type: 'text', text: 'Which is bigger?' },
        ],
      },
    ]);
  });

  it('turns tool_use into tool_calls and tool_result blocks into tool messages placed first, in order', () => {
    const request = convert({
      messages: [
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two calls.', signature: 'sig-1' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Tokyo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here you go.' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'Rain' }], is_error: false },
          ],
        },
      ],
    });
    expect(request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } },
        ],
        reasoning_content: 'Two calls.',
        thinking_blocks: [
          { type: 'thinking', thinking: 'Two calls.', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque' },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Rain' },
      { role: 'user', content: 'Here you go.' },
    ]);
  });

  it('keeps unsigned reasoning as reasoning_content only: only a signed block can go back to a checking upstream', () => {
    const request = convert({
      messages: [
        ...hello,
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Hmm.', signature: '' },
            { type: 'text', text: 'Hi!' },
          ],
        },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(request.messages[1]).toEqual({ role: 'assistant', content: 'Hi!', reasoning_content: 'Hmm.' });
  });

  it('refuses blocks that cannot be carried, naming where they are', () => {
    const refused = expectGatewayError(
      () =>
        convert({
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Summarise' },
                { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } },
              ],
            },
          ],
        }),
      400,
      'unsupported_content_part',
    );
    expect(refused.message).toContain('messages.0.content.1 is a document block');
    expectGatewayError(
      () =>
        convert({
          messages: [
            { role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] },
          ],
        }),
      400,
      'unsupported_content_part',
    );
    expectGatewayError(
      () => convert({ messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }] }),
      400,
      'invalid_request',
    );
  });
});

describe('convertMessagesRequestToChat: tools', () => {
  it('turns custom tools into function tools and maps every tool_choice', () => {
    const withTools = { messages: hello, tools: [weatherTool] };
    expect(convert(withTools).tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherTool.input_schema },
      },
    ]);
    const choices: [unknown, Record<string, unknown>][] = [
      [{ type: 'auto' }, { tool_choice: 'auto' }],
      [{ type: 'any' }, { tool_choice: 'required' }],
      [{ type: 'none' }, { tool_choice: 'none' }],
      [{ type: 'tool', name: 'get_weather' }, { tool_choice: { type: 'function', function: { name: 'get_weather' } } }],
      [
        { type: 'auto', disable_parallel_tool_use: true },
        { tool_choice: 'auto', parallel_tool_calls: false },
      ],
    ];
    for (const [choice, expected] of choices) {
      const request = convert({ ...withTools, tool_choice: choice });
      expect({ tool_choice: request.tool_choice, parallel_tool_calls: request.parallel_tool_calls }).toEqual({
        parallel_tool_calls: undefined,
        ...expected,
      });
    }
    // Without tools there is nothing to choose from; chat upstreams refuse a dangling choice.
    expect(convert({ messages: hello, tool_choice: { type: 'any' } }).tool_choice).toBeUndefined();
    expectGatewayError(() => convert({ ...withTools, tool_choice: { type: 'tool' } }), 400, 'invalid_tool_choice');
    expectGatewayError(() => convert({ ...withTools, tool_choice: { type: 'some' } }), 400, 'invalid_tool_choice');
  });

  it('refuses tools the vendor defines', () => {
    const refused = expectGatewayError(
      () =>
        convert({
          messages: hello,
          tools: [weatherTool, { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }],
        }),
      400,
      'unsupported_tool',
    );
    expect(refused.message).toContain('tools.1 is the vendor-defined text_editor_20250728 tool');
  });
});
