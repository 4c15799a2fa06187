import { describe, expect, it } from 'vitest';
import { convertMessagesAnswerToChat } from '../../../shared/translation/chat-to-messages/convert-from-messages-answer.ts';
import { mapMessagesStopReason } from '../../../shared/translation/chat-to-messages/map-messages-stop-reason.ts';
import { readCallId } from '../../../shared/translation/chat-to-messages/reasoning-in-call-id.ts';
import { parseMessagesAnswer } from '../../../shared/wires/anthropic-messages/anthropic-messages-answer.ts';
import { messagesStopReasons } from '../../../shared/wires/anthropic-messages/anthropic-messages-stop-reason.ts';
import { chatCompletionId } from '../../../shared/wires/openai-chat/openai-chat-answer.ts';
import { readJsonFixture } from '../../support/sse-fixtures.ts';
import { expectGatewayError, fixtures } from './translate-fixture.ts';

/** An upstream answer as the pipeline hands it over: its JSON read once with the messages wire's answer schema. */
const convertMessagesResponseToChat = (json: unknown, options: Parameters<typeof convertMessagesAnswerToChat>[1]) =>
  convertMessagesAnswerToChat(parseMessagesAnswer(json), options);

const options = { id: chatCompletionId('req-1'), model: 'alpha/alpha-k2.7-code', created: 1_760_000_000 };

describe('convertMessagesAnswerToChat', () => {
  it('returns text as content and thinking as reasoning_content, never in content', async () => {
    const completion = convertMessagesResponseToChat(await readJsonFixture(fixtures, 'response-text.json'), options);
    expect(completion).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'alpha/alpha-k2.7-code',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hi! My name is Alpha.',
            refusal: null,
            reasoning_content: 'Simple greeting.',
            // The signed block itself, for the client to send back (openai-chat-thinking-blocks.ts).
            thinking_blocks: [
              {
                type: 'thinking',
                thinking: 'Simple greeting.',
                signature: expect.stringMatching(/^EpcBCkgIBRABGAIiQHtB0x/),
              },
            ],
          },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 2095,
        completion_tokens: 503,
        total_tokens: 2598,
        prompt_tokens_details: { cached_tokens: 0 },
      },
    });
  });

  it('returns tool_use blocks as tool_calls with JSON string arguments, and counts cached input', async () => {
    const completion = convertMessagesResponseToChat(
      await readJsonFixture(fixtures, 'response-tool-use.json'),
      options,
    );
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe("I'll check both cities.");
    expect(choice.message.tool_calls).toEqual([
      {
        // The first call's id also carries the answer's signed reasoning, for clients that drop thinking_blocks.
        id: expect.stringMatching(/^toolu_01A09q90qw90lq917835lq9_gwr1_[\w-]+$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Paris, France","unit":"celsius"}' },
      },
      {
        id: 'toolu_01GE1Y9sHMxTt6cPRfEGWZ4v',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Tokyo, Japan","unit":"celsius"}' },
      },
    ]);
    expect(readCallId(choice.message.tool_calls?.[0]?.id ?? '')).toEqual({
      upstreamId: 'toolu_01A09q90qw90lq917835lq9',
      thinkingBlocks: choice.message.thinking_blocks,
    });
    // 14 uncached + 2764 read from cache + 248 written to cache; only the reads are cached input.
    expect(completion.usage).toEqual({
      prompt_tokens: 3026,
      completion_tokens: 121,
      total_tokens: 3147,
      prompt_tokens_details: { cached_tokens: 2764 },
    });
  });

  it('gives null content for a tool-only answer and leaves usage out when the upstream reported none', () => {
    const completion = convertMessagesResponseToChat(
      {
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'list_files', input: {} }],
        stop_reason: 'tool_use',
      },
      options,
    );
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'list_files', arguments: '{}' } }],
    });
    expect(completion).not.toHaveProperty('usage');
  });

  it('maps a stop by max tokens to length and an unknown reason to stop', () => {
    const answer = (stopReason: string | null) =>
      convertMessagesResponseToChat({ content: [{ type: 'text', text: 'The sea' }], stop_reason: stopReason }, options)
        .choices[0].finish_reason;
    expect(answer('max_tokens')).toBe('length');
    expect(answer('an_engine_specific_reason')).toBe('stop');
    expect(answer(null)).toBe('stop');
  });

  it('refuses a body that is not a messages answer as an upstream fault', () => {
    expectGatewayError(
      () => convertMessagesResponseToChat({ content: 'nope' }, options),
      502,
      'upstream_invalid_response',
    );
  });
});

describe('mapMessagesStopReason', () => {
  it('maps every documented stop reason to a chat finish reason', () => {
    expect(Object.fromEntries(messagesStopReasons.map((reason) => [reason, mapMessagesStopReason(reason)]))).toEqual({
      end_turn: 'stop',
      stop_sequence: 'stop',
      max_tokens: 'length',
      tool_use: 'tool_calls',
      pause_turn: 'stop',
      refusal: 'content_filter',
      model_context_window_exceeded: 'length',
    });
  });
});
