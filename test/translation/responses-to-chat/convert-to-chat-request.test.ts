import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../shared/http/parse-request.ts';
import { convertChatRequestToMessages } from '../../../shared/translation/chat-to-messages/convert-to-messages-request.ts';
import { applyReasoningEffort } from '../../../shared/translation/reasoning-effort.ts';
import { convertResponsesRequestToChat } from '../../../shared/translation/responses-to-chat/convert-to-chat-request.ts';
import { encodeReasoningState } from '../../../shared/translation/responses-to-chat/reasoning-state.ts';
import { translatableChatRequestSchema } from '../../../shared/wires/openai-chat/openai-chat-request.ts';
import { translatableResponsesRequestSchema } from '../../../shared/wires/openai-responses/openai-responses-request.ts';
import { expectGatewayError } from '../chat-to-messages/translate-fixture.ts';

const model = 'alpha/alpha-k3';
/** A Responses request read as the hop reads it, with the Responses wire's translatable schema. */
const read = (body: Record<string, unknown>) => parseRequest(translatableResponsesRequestSchema, { model, ...body });
const translate = (body: Record<string, unknown>) => convertResponsesRequestToChat(read(body));
const convert = (body: Record<string, unknown>) => translate(body).request;

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

/** Codex CLI's apply_patch for a model it does not know: a custom tool whose input follows a Lark grammar. */
const applyPatchTool = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
};

describe('convertResponsesRequestToChat: input', () => {
  it('turns string input and instructions into a system and a user message, leaving the cap to the upstream wire', () => {
    expect(convert({ input: 'Hello', instructions: 'Be brief.', max_output_tokens: 256 })).toEqual({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });
  });

  it('streams with the usage chunk asked for, since response.completed carries usage', () => {
    expect(convert({ input: 'Hello', stream: true })).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(convert({ input: 'Hello', stream: false })).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: false,
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

  it('carries images by URL and inline, with their detail, in user messages', () => {
    const inline = 'data:image/png;base64,iVBORw0KGgo=';
    expect(
      convert({
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: inline, detail: 'low' },
              { type: 'input_image', image_url: 'https://example.test/cat.png', detail: 'auto' },
            ],
          },
        ],
      }).messages,
    ).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: inline, detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.test/cat.png', detail: 'auto' } },
        ],
      },
    ]);
  });

  it('carries inline files that are images or videos as those parts, also in a tool`s output', () => {
    const video = 'data:video/mp4;base64,AAAAGGZ0eXBpc29t';
    const image = 'data:image/jpeg;base64,/9j/4AAQ';
    expect(
      convert({
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_file', file_data: video, filename: 'clip.mp4' },
              { type: 'input_file', file_data: image, filename: 'photo.jpg' },
            ],
          },
          { type: 'function_call', call_id: 'call_r', name: 'record', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_r', output: [{ type: 'input_file', file_data: video }] },
        ],
      }).messages,
    ).toEqual([
      {
        role: 'user',
        content: [
          { type: 'video_url', video_url: { url: video } },
          { type: 'image_url', image_url: { url: image } },
        ],
      },
      expect.objectContaining({ role: 'assistant' }),
      { role: 'tool', tool_call_id: 'call_r', content: '' },
      { role: 'user', content: [{ type: 'video_url', video_url: { url: video } }] },
    ]);
  });

  it.each([
    ['an image by file id', { role: 'user', content: [{ type: 'input_image', file_id: 'file-abc' }] }],
    ['a file', { role: 'user', content: [{ type: 'input_file', file_id: 'file-abc' }] }],
    [
      'a PDF',
      {
        role: 'user',
        content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' }],
      },
    ],
    ['audio', { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
    [
      'an image in a system message',
      { role: 'system', content: [{ type: 'input_image', image_url: 'https://a.test/b.png' }] },
    ],
  ])('refuses %s by its place', (_name, item) => {
    const error = expectGatewayError(
      () => convert({ input: [{ role: 'user', content: 'Look:' }, item] }),
      400,
      'unsupported_content_part',
    );
    expect(error.message).toMatch(/^input\.1\.content\.0 is/);
  });

  it('groups function calls after the text of their assistant message, and each output as a tool message', () => {
    const request = convert({
      input: [
        { role: 'user', content: 'Weather in Oslo and Bergen?' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking both.' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '{"location":"Oslo"}' },
        { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"location":"Bergen"}' },
        { type: 'function_call_output', call_id: 'call_a', output: '4°C' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '7°C' }] },
        { type: 'function_call', call_id: 'call_c', name: 'get_weather', arguments: '{"location":"Tromsø"}' },
        { type: 'function_call_output', call_id: 'call_c', output: '-2°C' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo and Bergen?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Bergen"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '4°C' },
      { role: 'tool', tool_call_id: 'call_b', content: '7°C' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_c', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Tromsø"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_c', content: '-2°C' },
    ]);
  });

  it('sends images of a tool output in a user message after the run of outputs', () => {
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    const { messages } = convert({
      input: [
        { role: 'user', content: 'Look at the screenshot.' },
        { type: 'function_call', call_id: 'call_a', name: 'view_image', arguments: '{"path":"a.png"}' },
        {
          type: 'function_call_output',
          call_id: 'call_a',
          output: [
            { type: 'input_text', text: 'a.png' },
            { type: 'input_image', image_url: image },
          ],
        },
      ],
    });
    expect(messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_a', content: 'a.png' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: image } }] },
    ]);
  });

  it('refuses an output whose call is not in the input', () => {
    const error = expectGatewayError(
      () => convert({ input: [{ type: 'function_call_output', call_id: 'call_x', output: 'done' }] }),
      400,
      'unmatched_tool_output',
    );
    expect(error.message).toContain('input.0 is the output of call call_x');
  });

  it("carries a custom tool's calls as calls of a function of one string, and their outputs", () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch';
    const { messages } = convert({
      input: [
        { role: 'user', content: 'Add a.txt' },
        { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: patch },
        { type: 'custom_tool_call_output', call_id: 'call_p', output: 'Done!' },
      ],
      tools: [applyPatchTool],
    });
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_p',
            type: 'function',
            function: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_p', content: 'Done!' },
    ]);
  });

  it("gives reasoning back as the next assistant message's reasoning_content, from whatever form the item kept", () => {
    const reasoning = (fields: Record<string, unknown>) => ({ type: 'reasoning', id: 'rs_1', summary: [], ...fields });
    const call = { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{}' };
    const reasoningOf = (item: Record<string, unknown>) => {
      const { messages } = convert({ input: [{ role: 'user', content: 'Hi' }, item, call] });
      return (messages[1] as { reasoning_content?: string }).reasoning_content;
    };
    // The gateway's own state, from an earlier translated answer: exactly the text the model wrote.
    expect(reasoningOf(reasoning({ encrypted_content: encodeReasoningState({ text: 'Think\nhard.' }) }))).toBe(
      'Think\nhard.',
    );
    expect(reasoningOf(reasoning({ content: [{ type: 'reasoning_text', text: 'Raw thought.' }] }))).toBe(
      'Raw thought.',
    );
    expect(
      reasoningOf(
        reasoning({
          summary: [
            { type: 'summary_text', text: 'First.' },
            { type: 'summary_text', text: 'Second.' },
          ],
        }),
      ),
    ).toBe('First.\n\nSecond.');
    expect(reasoningOf(reasoning({}))).toBeUndefined();
  });

  it('leaves out a reasoning item that carries the vendor`s encrypted state: another model`s reasoning', () => {
    const vendorTurn = [
      { role: 'user', content: 'Hi' },
      {
        type: 'reasoning',
        id: 'rs_68a3f0c1d2e4',
        summary: [{ type: 'summary_text', text: 'Greet back.' }],
        content: [{ type: 'reasoning_text', text: 'The user greets me.' }],
        encrypted_content: 'gAAAAABo-vendor-state',
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello!' }] },
      { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{}' },
    ];
    expect(convert({ input: vendorTurn }).messages).toEqual([
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: 'Hello!',
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
    ]);
  });

  it('leaves out references to reasoning items and refuses references to anything else the server stored', () => {
    expect(
      convert({
        input: [
          { role: 'user', content: 'Hi' },
          { type: 'item_reference', id: 'rs_abc' },
          { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{}' },
        ],
      }).messages,
    ).toHaveLength(2);
    const error = expectGatewayError(
      () =>
        convert({
          input: [
            { role: 'user', content: 'Hi' },
            { type: 'item_reference', id: 'msg_abc' },
          ],
        }),
      400,
      'stored_state_unsupported',
    );
    expect(error.message).toContain('input.1 is an item_reference');
  });

  it.each(['computer_call', 'web_search_call', 'local_shell_call', 'mcp_call'])(
    'refuses an input item of type %s by name',
    (type) => {
      const error = expectGatewayError(
        () =>
          convert({
            input: [
              { role: 'user', content: 'Hi' },
              { type, id: 'x_1' },
            ],
          }),
        400,
        'unsupported_responses_input',
      );
      expect(error.message).toContain(`input.1 is an item of type ${type}`);
    },
  );

  it('refuses a malformed item as invalid, naming its place', () => {
    for (const item of [
      { type: 'message', role: 'tool', content: 'x' },
      { type: 'function_call', call_id: 'call_a', arguments: '{}' },
      { type: 'function_call_output', output: 'x' },
    ]) {
      const error = expectGatewayError(() => convert({ input: [item] }), 400, 'invalid_request');
      expect(error.message).toContain('input.0.');
    }
  });

  it('requires input, and at least one item', () => {
    expectGatewayError(() => convert({ instructions: 'Be brief.' }), 400, 'invalid_request');
    expectGatewayError(() => convert({ input: [] }), 400, 'invalid_request');
  });
});

describe('convertResponsesRequestToChat: parameters', () => {
  it('passes what chat has: sampling, reasoning effort, verbosity, user, safety identifier, cache key, tier', () => {
    expect(
      convert({
        input: 'Hi',
        temperature: 0.2,
        top_p: 0.9,
        reasoning: { effort: 'max', summary: 'auto' },
        text: { verbosity: 'low' },
        user: 'user-1',
        safety_identifier: 'hash-1',
        prompt_cache_key: 'thread-1',
        service_tier: 'priority',
      }),
    ).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.2,
      top_p: 0.9,
      reasoning_effort: 'max',
      verbosity: 'low',
      user: 'user-1',
      safety_identifier: 'hash-1',
      prompt_cache_key: 'thread-1',
      service_tier: 'priority',
    });
  });

  it('takes store: false and an absent store alike, and drops what changes nothing a chat upstream does', () => {
    const plain = { model, messages: [{ role: 'user', content: 'Hi' }] };
    expect(convert({ input: 'Hi' })).toEqual(plain);
    expect(
      convert({
        input: 'Hi',
        store: false,
        metadata: { trace: 't1' },
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
        max_tool_calls: 3,
        stream_options: { include_obfuscation: false },
        text: { format: { type: 'text' } },
      }),
    ).toEqual(plain);
  });

  it('translates function and custom tools, the tool choice and parallel_tool_calls into the chat form', () => {
    const { request, form } = translate({
      input: 'Weather?',
      tools: [weatherTool, applyPatchTool],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(request.tools?.[0]).toEqual(chatWeatherTool);
    expect(request.tools?.[1]).toEqual({
      type: 'function',
      function: {
        name: 'apply_patch',
        description: applyPatchTool.description,
        parameters: {
          type: 'object',
          properties: {
            input: {
              type: 'string',
              description: `The tool's whole input, as free-form text (not JSON). It must follow this lark grammar:\nstart: begin_patch hunk+ end_patch`,
            },
          },
          required: ['input'],
          additionalProperties: false,
        },
      },
    });
    expect(request.tool_choice).toBe('auto');
    expect(request.parallel_tool_calls).toBe(false);
    expect([...form.customToolNames]).toEqual(['apply_patch']);
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
    [
      { type: 'custom', name: 'apply_patch' },
      { type: 'function', function: { name: 'apply_patch' } },
    ],
  ])('maps tool_choice %j', (choice, expected) => {
    expect(
      convert({ input: 'Weather?', tools: [weatherTool, applyPatchTool], tool_choice: choice }).tool_choice,
    ).toEqual(expected);
  });

  it('leaves tool_choice and parallel_tool_calls out without tools, where chat upstreams refuse them', () => {
    const request = convert({ input: 'Hi', tool_choice: 'none', parallel_tool_calls: true });
    expect(request).toEqual({ model, messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('leaves web search out, as Codex CLI offers it on every request, and refuses every other built-in tool', () => {
    for (const type of ['web_search', 'web_search_preview', 'web_search_2025_08_26']) {
      expect(convert({ input: 'Hi', tools: [weatherTool, { type, external_web_access: false }] }).tools).toEqual([
        chatWeatherTool,
      ]);
    }
    for (const type of ['file_search', 'code_interpreter', 'mcp', 'image_generation', 'local_shell', 'shell']) {
      const tool = expectGatewayError(
        () => convert({ input: 'Hi', tools: [weatherTool, { type }] }),
        400,
        'unsupported_tool',
      );
      expect(tool.message).toContain(`tools.1 is a built-in tool of type ${type}`);
    }
  });

  it('refuses tool choices chat has no form for', () => {
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

  it('refuses log probabilities, which the answer cannot carry', () => {
    expectGatewayError(() => convert({ input: 'Hi', top_logprobs: 3 }), 400, 'unsupported_parameter');
    expectGatewayError(
      () => convert({ input: 'Hi', include: ['message.output_text.logprobs'] }),
      400,
      'unsupported_parameter',
    );
  });

  it.each([
    ['store: true', { store: true }],
    ['previous_response_id', { previous_response_id: 'resp_abc' }],
    ['conversation', { conversation: 'conv_abc' }],
    ['conversation', { conversation: { id: 'conv_abc' } }],
    ['prompt', { prompt: { id: 'pmpt_abc', version: '2' } }],
    ['background: true', { background: true }],
  ])('refuses server-stored state: %s', (field, state) => {
    const error = expectGatewayError(() => convert({ input: 'Continue', ...state }), 400, 'stored_state_unsupported');
    expect(error.message).toMatch(new RegExp(`^${field}: `));
    expect(error.message).toContain('The gateway stores no responses');
  });

  it('refuses previous_response_id even without input, for the clearer reason', () => {
    expectGatewayError(() => convert({ previous_response_id: 'resp_abc' }), 400, 'stored_state_unsupported');
  });
});

describe('what the answer repeats and how it is shaped', () => {
  it('repeats the request settings the way the vendor response does', () => {
    expect(
      translate({
        input: 'Hi',
        instructions: 'Be brief.',
        max_output_tokens: 64,
        metadata: { trace: 't1' },
        temperature: 0.5,
        tools: [weatherTool, applyPatchTool, { type: 'web_search' }],
        tool_choice: { type: 'function', name: 'get_weather' },
        reasoning: { effort: 'low', summary: 'detailed' },
      }).settings,
    ).toEqual({
      instructions: 'Be brief.',
      max_output_tokens: 64,
      metadata: { trace: 't1' },
      parallel_tool_calls: true,
      reasoning: { effort: 'low', summary: 'detailed' },
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
        { type: 'custom', name: 'apply_patch', description: applyPatchTool.description, format: applyPatchTool.format },
      ],
      top_p: null,
    });
  });

  it('gives reasoning as a summary when one is asked for, and its state when include asks for it', () => {
    expect(translate({ input: 'Hi' }).form).toMatchObject({ reasoningAs: 'content', encryptedReasoning: false });
    expect(
      translate({ input: 'Hi', reasoning: { summary: 'auto' }, include: ['reasoning.encrypted_content'] }).form,
    ).toMatchObject({ reasoningAs: 'summary', encryptedReasoning: true });
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

  it('is accepted by the chat-to-messages translator (K2.7 route), reasoning and tool loop included', () => {
    const chat = convert({
      instructions: 'Be brief.',
      stream: true,
      input: [
        { role: 'user', content: 'Weather?' },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Use the tool.' }] },
        { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"location":"Oslo"}' },
        { type: 'function_call_output', call_id: 'toolu_1', output: 'cold' },
      ],
    });
    expect(
      convertChatRequestToMessages(parseRequest(translatableChatRequestSchema, chat), {
        upstreamModel: 'alpha-for-coding',
        maxTokensDefault: 4096,
      }),
    ).toEqual({
      model: 'alpha-for-coding',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Use the tool.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Oslo' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'cold' }] },
      ],
      stream: true,
    });
  });
});
