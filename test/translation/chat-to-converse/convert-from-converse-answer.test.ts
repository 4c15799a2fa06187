import { describe, expect, it } from 'vitest';
import { convertConverseAnswerToChat } from '../../../shared/translation/chat-to-converse/convert-from-converse-answer.ts';
import { mapConverseStopReason } from '../../../shared/translation/chat-to-converse/map-converse-stop-reason.ts';
import { readCallId } from '../../../shared/translation/chat-to-messages/reasoning-in-call-id.ts';
import { parseConverseAnswer } from '../../../shared/wires/bedrock-converse/bedrock-converse-answer.ts';
import { converseStopReasons } from '../../../shared/wires/bedrock-converse/bedrock-converse-stop-reason.ts';
import { chatFinishReasons } from '../../../shared/wires/openai-chat/openai-chat-finish-reason.ts';
import { readJsonFixture } from '../../support/sse-fixtures.ts';
import { fixtures } from './translate-fixture.ts';

const identity = { id: 'chatcmpl-req-1', model: 'bedrock/nova-lite', created: 1_760_000_000 };

async function converted(name: string) {
  return convertConverseAnswerToChat(parseConverseAnswer(await readJsonFixture(fixtures, name)), identity);
}

describe('convertConverseAnswerToChat', () => {
  it('turns an answer with text and a toolUse into a chat completion with a tool call', async () => {
    expect(await converted('answer-tool-use.json')).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'bedrock/nova-lite',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'To find the most popular song on WZPZ, I will use the top_song tool.',
            refusal: null,
            tool_calls: [
              {
                id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
                type: 'function',
                function: { name: 'top_song', arguments: '{"sign":"WZPZ"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 375, completion_tokens: 66, total_tokens: 441 },
    });
  });

  it('puts reasoning in reasoning_content and signed or redacted blocks in thinking_blocks; usage counts the cache', async () => {
    const completion = await converted('answer-reasoning-cached.json');
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: 'The capital of France is Paris.',
      refusal: null,
      reasoning_content: 'The user asks for the capital of France. That is Paris.',
      thinking_blocks: [
        {
          type: 'thinking',
          thinking: 'The user asks for the capital of France. That is Paris.',
          signature: 'EqoBCkgIARABGAIiQGi1WQ1c1c8HEkzMYgTg8vrn3s3xQn9uJpZ1v0w=',
        },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw' },
      ],
    });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toEqual({
      prompt_tokens: 3012,
      completion_tokens: 40,
      total_tokens: 3052,
      prompt_tokens_details: { cached_tokens: 2800 },
    });
  });

  it('the first tool call carries signed reasoning in its id for clients that drop thinking_blocks', () => {
    const completion = convertConverseAnswerToChat(
      parseConverseAnswer({
        output: {
          message: {
            content: [
              { reasoningContent: { reasoningText: { text: 'Think.', signature: 'sig' } } },
              { toolUse: { toolUseId: 'tooluse_1', name: 'f', input: {} } },
              { toolUse: { toolUseId: 'tooluse_2', name: 'g' } },
            ],
          },
        },
        stopReason: 'tool_use',
      }),
      identity,
    );
    const calls = completion.choices[0].message.tool_calls ?? [];
    expect(readCallId(calls[0]?.id ?? '')).toEqual({
      upstreamId: 'tooluse_1',
      thinkingBlocks: [{ type: 'thinking', thinking: 'Think.', signature: 'sig' }],
    });
    expect(calls[1]).toEqual({ id: 'tooluse_2', type: 'function', function: { name: 'g', arguments: '{}' } });
    expect(completion.choices[0].message.content).toBeNull();
    expect(completion).not.toHaveProperty('usage');
  });

  it('maps every documented stop reason to a chat finish reason; an unknown one is stop', () => {
    for (const reason of converseStopReasons) expect(chatFinishReasons).toContain(mapConverseStopReason(reason));
    expect(mapConverseStopReason('max_tokens')).toBe('length');
    expect(mapConverseStopReason('content_filtered')).toBe('content_filter');
    const answer = parseConverseAnswer({ output: { message: { content: [{ text: 'x' }] } }, stopReason: 'brand_new' });
    expect(convertConverseAnswerToChat(answer, identity).choices[0].finish_reason).toBe('stop');
  });
});
