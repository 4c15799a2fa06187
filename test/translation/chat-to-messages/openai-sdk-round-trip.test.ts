import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { convertMessagesAnswerToChat } from '../../../shared/translation/chat-to-messages/convert-from-messages-answer.ts';
import { parseMessagesAnswer } from '../../../shared/wires/anthropic-messages/anthropic-messages-answer.ts';
import { clientAnswering, sseResponse } from '../../support/openai-client-answering.ts';
import { readJsonFixture } from '../../support/sse-fixtures.ts';
import { fixtures, streamOptions, translateFixture } from './translate-fixture.ts';

const params = {
  model: streamOptions.model,
  messages: [{ role: 'user' as const, content: 'Weather, time and open files in Tokyo?' }],
  tools: ['get_weather', 'get_time', 'list_open_files'].map((name) => ({
    type: 'function' as const,
    function: { name, parameters: { type: 'object', properties: {} } },
  })),
};

describe('translated streams through the official openai SDK', () => {
  it("assembles three parallel tool calls with the SDK's own stream helper", async () => {
    const sse = await translateFixture('parallel-tool-calls-stream.sse', { includeUsage: true });
    const client = clientAnswering(() => sseResponse(sse));
    const finishedArguments: string[] = [];
    const stream = client.chat.completions
      .stream({ ...params, stream_options: { include_usage: true } })
      .on('tool_calls.function.arguments.done', (event) => finishedArguments.push(`${event.index}:${event.name}`));

    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(
      choice.message.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name] : [])),
    ).toEqual([
      [expect.stringMatching(/^toolu_01A09q90qw90lq917835lq9_gwr1_/), 'get_weather'],
      ['toolu_01GE1Y9sHMxTt6cPRfEGWZ4v', 'get_time'],
      ['toolu_01CwTdpvT5Hw6wJ2c4gVPdJq', 'list_open_files'],
    ]);
    const parsedArguments = choice.message.tool_calls?.map((call) =>
      call.type === 'function' ? JSON.parse(call.function.arguments) : undefined,
    );
    expect(parsedArguments).toEqual([{ location: 'Tokyo' }, { timezone: 'Asia/Tokyo' }, {}]);
    expect(finishedArguments).toEqual(['0:get_weather', '1:get_time', '2:list_open_files']);
    expect(completion.usage).toMatchObject({ prompt_tokens: 2186, completion_tokens: 164 });
  });

  it('assembles text after thinking with no thinking in the content', async () => {
    const sse = await translateFixture('thinking-then-text-stream.sse');
    const completion = await clientAnswering(() => sseResponse(sse))
      .chat.completions.stream({ model: params.model, messages: params.messages })
      .finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe('27 × 453 = 12,231');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('raises the SDK error with the upstream message when the stream fails midway', async () => {
    const sse = await translateFixture('error-mid-stream.sse');
    const stream = await clientAnswering(() => sseResponse(sse)).chat.completions.create({
      model: params.model,
      messages: params.messages,
      stream: true,
    });
    const received: string[] = [];
    const consume = async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    };
    const failure = await consume().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!(failure instanceof APIError)) throw new Error(`expected the SDK's APIError, got ${String(failure)}`);
    expect(failure.message).toContain('Overloaded');
    expect(received.join('')).toBe('Here is the first part of');
  });

  it('parses a translated non-streamed answer with its tool calls', async () => {
    const body = convertMessagesAnswerToChat(
      parseMessagesAnswer(await readJsonFixture(fixtures, 'response-tool-use.json')),
      {
        id: 'chatcmpl-req-2',
        model: params.model,
      },
    );
    const client = clientAnswering(() =>
      Response.json(body, { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    const completion = await client.chat.completions.create({ model: params.model, messages: params.messages });
    const calls = completion.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((call) => (call.type === 'function' ? JSON.parse(call.function.arguments) : undefined))).toEqual([
      { location: 'Paris, France', unit: 'celsius' },
      { location: 'Tokyo, Japan', unit: 'celsius' },
    ]);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(2764);
  });
});
