import { describe, expect, it } from 'vitest';
import { convertChatCompletionToMessages } from '../../../shared/translation/messages-to-chat/convert-from-chat-completion.ts';
import { parseChatAnswer } from '../../../shared/wires/openai-chat/openai-chat-answer.ts';
import { readJsonFixture } from '../../support/sse-fixtures.ts';
import { expectGatewayError } from '../chat-to-messages/translate-fixture.ts';
import { fixtures, identity } from './translate-fixture.ts';

const convert = async (name: string) =>
  convertChatCompletionToMessages(parseChatAnswer(await readJsonFixture(fixtures, name)), identity);

describe('convertChatCompletionToMessages', () => {
  it('answers text with the reasoning first as an unsigned thinking block, and the usage split the vendor`s way', async () => {
    expect(await convert('completion-text.json')).toEqual({
      id: 'msg_req-1',
      type: 'message',
      role: 'assistant',
      model: 'acme/acme-1',
      content: [
        { type: 'thinking', thinking: 'Weather question; answer briefly.', signature: '' },
        { type: 'text', text: 'Il fait beau — 21 °C.' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 508, output_tokens: 48, cache_creation_input_tokens: null, cache_read_input_tokens: 1024 },
    });
  });

  it('answers tool calls as tool_use blocks after the signed reasoning the upstream returned in thinking_blocks', async () => {
    const answer = await convert('completion-tool-calls.json');
    expect(answer.stop_reason).toBe('tool_use');
    expect(answer.content).toEqual([
      { type: 'thinking', thinking: 'Two calls.', signature: 'EqQBCgIYAhIMsig' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'tool_use', id: 'call_Paris01', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_Files03', name: 'list_files', input: {} },
    ]);
  });

  it('maps every finish reason, keeps a refusal as text and arguments that are not JSON under input', () => {
    const answer = (finish_reason: string, message: Record<string, unknown> = { content: 'x' }) =>
      convertChatCompletionToMessages(parseChatAnswer({ choices: [{ message, finish_reason }] }), identity);
    expect(answer('length').stop_reason).toBe('max_tokens');
    expect(answer('content_filter').stop_reason).toBe('refusal');
    expect(answer('function_call').stop_reason).toBe('tool_use');
    expect(answer('eos').stop_reason).toBe('end_turn');
    expect(answer('stop', { content: null, refusal: 'I cannot help with that.' }).content).toEqual([
      { type: 'text', text: 'I cannot help with that.' },
    ]);
    expect(
      answer('length', { tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"cut": "sho' } }] }).content,
    ).toEqual([{ type: 'tool_use', id: 'c1', name: 'f', input: { input: '{"cut": "sho' } }]);
    // Usage the upstream did not report is 0 in the answer (the format needs a number); the record keeps it unknown.
    expect(answer('stop').usage).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
    });
  });

  it('is an upstream fault (502) when the answer has no choice', () => {
    expectGatewayError(
      () => convertChatCompletionToMessages(parseChatAnswer({ choices: [] }), identity),
      502,
      'upstream_invalid_response',
    );
  });
});
