import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertChatRequestToConverse } from '../../../shared/translation/chat-to-converse/convert-to-converse-request.ts';
import { callIdCarryingReasoning } from '../../../shared/translation/chat-to-messages/reasoning-in-call-id.ts';
import {
  type ConverseRequest,
  converseRequestSchema,
} from '../../../shared/wires/bedrock-converse/bedrock-converse-request.ts';
import { translatableChatRequestSchema } from '../../../shared/wires/openai-chat/openai-chat-request.ts';
import { expectGatewayError } from '../chat-to-messages/translate-fixture.ts';

const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A chat body read as the hop reads it, converted, and held to the strict schema of what Converse takes. */
function convert(body: Record<string, unknown>, outputAllowance = 4096): ConverseRequest {
  const request = translatableChatRequestSchema.parse({ model: 'bedrock/nova-lite', ...body });
  const converted = convertChatRequestToConverse(request, { outputAllowance });
  expect(converseRequestSchema.safeParse(converted).error).toBeUndefined();
  return converted;
}

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('convertChatRequestToConverse', () => {
  it('gathers system and developer messages into system, and sends the settings in inferenceConfig', () => {
    expect(
      convert({
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Hello' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        ],
        temperature: 0.3,
        top_p: 0.9,
        stop: 'END',
        max_tokens: 100,
        user: 'dana',
        seed: 7,
        parallel_tool_calls: false,
        reasoning_effort: 'high',
      }),
    ).toEqual({
      system: [{ text: 'You are terse.' }, { text: 'Answer in French.' }],
      messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
      inferenceConfig: { maxTokens: 4096, temperature: 0.3, topP: 0.9, stopSequences: ['END'] },
    });
  });

  it('turns a tool loop into alternating turns: the calls as toolUse, consecutive results merged into one user turn', () => {
    const converted = convert({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            { id: 'tooluse_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'tooluse_b', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'tooluse_a', content: '18°C' },
        { role: 'tool', tool_call_id: 'tooluse_b', content: [{ type: 'text', text: '24°C' }] },
        { role: 'user', content: 'Thanks; which is warmer?' },
      ],
      tools: [weatherTool],
      tool_choice: 'auto',
    });
    expect(converted.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { text: 'Checking both.' },
          { toolUse: { toolUseId: 'tooluse_a', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'tooluse_b', name: 'get_weather', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_a', content: [{ text: '18°C' }] } },
          { toolResult: { toolUseId: 'tooluse_b', content: [{ text: '24°C' }] } },
          { text: 'Thanks; which is warmer?' },
        ],
      },
    ]);
    expect(converted.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'The weather in a city',
            inputSchema: { json: weatherTool.function.parameters },
          },
        },
      ],
      toolChoice: { auto: {} },
    });
  });

  it.each([
    ['required', { any: {} }],
    [{ type: 'function', function: { name: 'get_weather' } }, { tool: { name: 'get_weather' } }],
    [undefined, undefined],
  ])('tool_choice %j is toolChoice %j', (choice, expected) => {
    const converted = convert({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [weatherTool],
      tool_choice: choice,
    });
    expect(converted.toolConfig?.toolChoice).toEqual(expected);
  });

  it('tool_choice none leaves the tools out, unless the conversation holds tool turns, which Converse reads only with them', () => {
    expect(
      convert({ messages: [{ role: 'user', content: 'hi' }], tools: [weatherTool], tool_choice: 'none' }),
    ).not.toHaveProperty('toolConfig');
    const withHistory = convert({
      messages: [
        { role: 'user', content: 'Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: '18°C' },
      ],
      tools: [weatherTool],
      tool_choice: 'none',
    });
    expect(withHistory.toolConfig).toEqual({ tools: [expect.objectContaining({ toolSpec: expect.anything() })] });
  });

  it('refuses tool turns without the tools declared, before anything is sent', () => {
    expectGatewayError(
      () =>
        convert({
          messages: [
            { role: 'user', content: 'Paris?' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 't1', type: 'function', function: { name: 'w', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 't1', content: '18°C' },
          ],
        }),
      400,
      'tools_required',
    );
  });

  it('sends a data: URL image as an image block with its format and bytes', () => {
    const converted = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } },
            { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${pixel}` } },
          ],
        },
      ],
    });
    expect(converted.messages[0]?.content).toEqual([
      { text: 'What is this?' },
      { image: { format: 'png', source: { bytes: pixel } } },
      { image: { format: 'jpeg', source: { bytes: pixel } } },
    ]);
  });

  it.each([
    ['https://example.com/cat.png', 'unsupported_image_url'],
    ['http://10.0.0.1/cat.png', 'unsupported_image_url'],
    ['s3://bucket/cat.png', 'unsupported_image_url'],
    ['data:image/png,rawbytes', 'invalid_image_url'],
    [`data:image/bmp;base64,${pixel}`, 'unsupported_image_type'],
  ])('refuses the image %s with %s', (url, code) => {
    const error = expectGatewayError(
      () => convert({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] }),
      400,
      code,
    );
    expect(error.message.length).toBeGreaterThan(20);
  });

  it.each([
    [{ n: 2 }, 'unsupported_parameter'],
    [{ logprobs: true }, 'unsupported_parameter'],
    [{ response_format: { type: 'json_object' } }, 'unsupported_parameter'],
    [{ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }, 'unsupported_content_part'],
    [{ messages: [{ role: 'user', content: '' }] }, 'invalid_request'],
    [
      {
        messages: [
          {
            role: 'assistant',
            content: 'x',
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '[1]' } }],
          },
        ],
      },
      'invalid_tool_arguments',
    ],
    [{ tool_choice: 'sometimes' }, 'invalid_tool_choice'],
  ])('refuses %j with %s', (fields, code) => {
    expectGatewayError(
      () => convert({ messages: [{ role: 'user', content: 'hi' }], tools: [weatherTool], ...fields }),
      400,
      code,
    );
  });

  it('sends signed reasoning back as reasoningContent, from thinking_blocks or the first call id, and drops unsigned text', () => {
    const signed = { type: 'thinking' as const, thinking: 'Paris is in France.', signature: 'sig-1' };
    const history = (assistant: Record<string, unknown>) =>
      convert({
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', ...assistant },
          { role: 'tool', tool_call_id: 'tooluse_a', content: 'sunny' },
        ],
        tools: [weatherTool],
      }).messages[1]?.content;
    const call = (id: string) => ({
      id,
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    const expected = [
      { reasoningContent: { reasoningText: { text: 'Paris is in France.', signature: 'sig-1' } } },
      { reasoningContent: { redactedReasoning: { data: 'opaque' } } },
      { toolUse: { toolUseId: 'tooluse_a', name: 'get_weather', input: { city: 'Paris' } } },
    ];
    const blocks = [signed, { type: 'redacted_thinking' as const, data: 'opaque' }];
    expect(history({ content: null, thinking_blocks: blocks, tool_calls: [call('tooluse_a')] })).toEqual(expected);
    expect(history({ content: null, tool_calls: [call(callIdCarryingReasoning('tooluse_a', blocks))] })).toEqual(
      expected,
    );
    expect(history({ content: null, reasoning_content: 'unsigned musing', tool_calls: [call('tooluse_a')] })).toEqual([
      expected[2],
    ]);
  });

  it('leaves blank text out and trims the whitespace a final assistant turn ends in', () => {
    expect(
      convert({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '  ' },
              { type: 'text', text: 'Write a haiku.' },
            ],
          },
          { role: 'assistant', content: '' },
          { role: 'assistant', content: 'Autumn moon rises \n' },
        ],
      }).messages,
    ).toEqual([
      { role: 'user', content: [{ text: 'Write a haiku.' }] },
      { role: 'assistant', content: [{ text: 'Autumn moon rises' }] },
    ]);
  });

  it('maxTokens is always the output allowance, whatever the client asked for', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
        fc.boolean(),
        (allowance, maxTokens, maxCompletionTokens, withTools) => {
          const converted = convert(
            {
              messages: [{ role: 'user', content: 'hi' }],
              ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
              ...(maxCompletionTokens === undefined ? {} : { max_completion_tokens: maxCompletionTokens }),
              ...(withTools ? { tools: [weatherTool] } : {}),
            },
            allowance,
          );
          expect(converted.inferenceConfig.maxTokens).toBe(allowance);
        },
      ),
      { numRuns: 200 },
    );
  });
});
