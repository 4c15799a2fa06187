import { describe, expect, it } from 'vitest';
import { anthropicMessagesClientWire } from '../../shared/wires/anthropic-messages/anthropic-messages-client-wire.ts';
import { anthropicMessagesUpstreamWire } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { geminiClientWire } from '../../shared/wires/gemini/gemini-client-wire.ts';
import { geminiUpstreamWire } from '../../shared/wires/gemini/gemini-upstream-wire.ts';
import { openaiChatClientWire } from '../../shared/wires/openai-chat/openai-chat-client-wire.ts';
import { openaiChatUpstreamWire } from '../../shared/wires/openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesClientWire } from '../../shared/wires/openai-responses/openai-responses-client-wire.ts';
import { openaiResponsesUpstreamWire } from '../../shared/wires/openai-responses/openai-responses-upstream-wire.ts';
import type { UpstreamWireFormat } from '../../shared/wires/upstream-wire-format.ts';
import { expectGatewayError } from '../translation/chat-to-messages/translate-fixture.ts';

/** The body a wire sends upstream for `body` with an output cap of `cap` per answer. */
function sent(
  wire: UpstreamWireFormat<unknown, unknown>,
  body: Record<string, unknown>,
  cap: number,
  baseUrl = 'http://engine.internal/v1',
): Record<string, unknown> {
  const request = wire.buildUpstreamRequest({
    target: { baseUrl, credential: 'secret' },
    body,
    upstreamModel: 'm',
    stream: false,
    operation: 'generate',
    outputCap: cap,
  });
  return JSON.parse(request.body) as Record<string, unknown>;
}

const address = { innerPath: '/v1beta/models/acme/g:generateContent', query: new URLSearchParams() };
const chat = (extra: Record<string, unknown>) =>
  openaiChatClientWire.parseRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra }, address);
const responses = (extra: Record<string, unknown>) =>
  openaiResponsesClientWire.parseRequest({ model: 'm', input: 'hi', ...extra }, address);
const messages = (extra: Record<string, unknown>) =>
  anthropicMessagesClientWire.parseRequest(
    { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra },
    address,
  );
const gemini = (extra: Record<string, unknown>) =>
  geminiClientWire.parseRequest({ contents: [{ parts: [{ text: 'hi' }] }], ...extra }, address);

describe('the output cap each wire sends upstream', () => {
  it('chat: max_tokens to compatible engines, max_completion_tokens to OpenAI`s own API, where reasoning models refuse the other', () => {
    expect(sent(openaiChatUpstreamWire, {}, 500)).toMatchObject({ max_tokens: 500 });
    expect(sent(openaiChatUpstreamWire, {}, 500)).not.toHaveProperty('max_completion_tokens');
    const openai = sent(openaiChatUpstreamWire, {}, 500, 'https://api.openai.com/v1');
    expect(openai).toMatchObject({ max_completion_tokens: 500 });
    expect(openai).not.toHaveProperty('max_tokens');
    expect(sent(openaiChatUpstreamWire, {}, 500, 'https://team.openai.azure.com/openai/v1')).toMatchObject({
      max_completion_tokens: 500,
    });
  });

  it('chat: keeps the field the client used, lowers each one above the cap, and never raises one', () => {
    // Towards OpenAI's own API, the client's field alone.
    const openai = sent(openaiChatUpstreamWire, { max_completion_tokens: 100 }, 500, 'https://api.openai.com/v1');
    expect(openai).toEqual(expect.objectContaining({ max_completion_tokens: 100 }));
    expect(openai).not.toHaveProperty('max_tokens');
    expect(sent(openaiChatUpstreamWire, { max_tokens: 100 }, 500, 'https://api.openai.com/v1')).not.toHaveProperty(
      'max_completion_tokens',
    );
    // Towards a compatible engine, max_tokens too, which Ollama, LM Studio and DeepSeek-type APIs read alone.
    expect(sent(openaiChatUpstreamWire, { max_completion_tokens: 100 }, 500)).toMatchObject({
      max_completion_tokens: 100,
      max_tokens: 100,
    });
    expect(sent(openaiChatUpstreamWire, { max_completion_tokens: 9_000 }, 500)).toMatchObject({
      max_completion_tokens: 500,
      max_tokens: 500,
    });
    expect(sent(openaiChatUpstreamWire, { max_tokens: 100 }, 500)).not.toHaveProperty('max_completion_tokens');
    // An engine may read either field: one that asks for more than the allowance is held to it too.
    expect(sent(openaiChatUpstreamWire, { max_completion_tokens: 100, max_tokens: 90_000 }, 100)).toMatchObject({
      max_completion_tokens: 100,
      max_tokens: 100,
    });
  });

  it('responses, messages and generate-content: their own fields', () => {
    expect(sent(openaiResponsesUpstreamWire, {}, 300)).toMatchObject({ max_output_tokens: 300 });
    expect(sent(openaiResponsesUpstreamWire, { max_output_tokens: 9_000 }, 300)).toMatchObject({
      max_output_tokens: 300,
    });
    expect(sent(anthropicMessagesUpstreamWire, {}, 300)).toMatchObject({ max_tokens: 300 });
    expect(sent(anthropicMessagesUpstreamWire, { max_tokens: 200 }, 300)).toMatchObject({ max_tokens: 200 });
    expect(sent(geminiUpstreamWire, { generationConfig: { topK: 3 } }, 300)).toMatchObject({
      generationConfig: { topK: 3, maxOutputTokens: 300 },
    });
    expect(sent(geminiUpstreamWire, { generation_config: { max_output_tokens: 9_000 } }, 300)).toEqual({
      generation_config: { max_output_tokens: 300 },
    });
  });

  it('leaves a token count alone', () => {
    const request = anthropicMessagesUpstreamWire.buildUpstreamRequest({
      target: { baseUrl: 'http://engine.internal/v1', credential: 'secret' },
      body: { messages: [] },
      upstreamModel: 'm',
      stream: false,
      operation: 'count-tokens',
      outputCap: 300,
    });
    expect(JSON.parse(request.body)).not.toHaveProperty('max_tokens');
  });
});

describe('how many answers a request asks for', () => {
  it('is n on chat and candidateCount (either spelling) on generate-content; one elsewhere', () => {
    expect(openaiChatClientWire.answerCount(chat({}))).toBe(1);
    expect(openaiChatClientWire.answerCount(chat({ n: 64 }))).toBe(64);
    expect(geminiClientWire.answerCount(gemini({ generationConfig: { candidateCount: 3 } }))).toBe(3);
    expect(geminiClientWire.answerCount(gemini({ generation_config: { candidate_count: 5 } }))).toBe(5);
    expect(openaiResponsesClientWire.answerCount(responses({}))).toBe(1);
    expect(anthropicMessagesClientWire.answerCount(messages({}))).toBe(1);
  });

  it('refuses n and counts that are not positive integers, and a setting stated in both spellings', () => {
    expectGatewayError(() => chat({ n: 0 }), 400, 'invalid_request');
    expectGatewayError(() => chat({ n: 1.5 }), 400, 'invalid_request');
    expectGatewayError(() => gemini({ generationConfig: { candidateCount: -1 } }), 400, 'invalid_request');
    expectGatewayError(
      () => geminiClientWire.answerCount(gemini({ generationConfig: { candidateCount: 1, candidate_count: 8 } })),
      400,
      'invalid_request',
    );
    expectGatewayError(
      () =>
        geminiClientWire.requestedOutput(
          gemini({ generationConfig: { maxOutputTokens: 10 }, generation_config: { maxOutputTokens: 9_000 } }),
        ),
      400,
      'invalid_request',
    );
  });

  it('reads generate-content`s output cap in either spelling', () => {
    expect(geminiClientWire.requestedOutput(gemini({ generation_config: { max_output_tokens: 70 } }))).toBe(70);
    expect(geminiClientWire.requestedOutput(gemini({ generationConfig: { maxOutputTokens: 80 } }))).toBe(80);
  });
});

describe('what a finite allowance refuses', () => {
  it('allows the tools a client runs itself on every wire', () => {
    openaiChatClientWire.assertCostBounded(
      chat({
        tools: [
          { type: 'function', function: { name: 'f' } },
          { type: 'custom', custom: { name: 'patch' } },
        ],
      }),
    );
    openaiResponsesClientWire.assertCostBounded(
      responses({
        tools: [
          { type: 'function', name: 'f' },
          { type: 'custom', name: 'apply_patch' },
        ],
      }),
    );
    anthropicMessagesClientWire.assertCostBounded(
      messages({
        tools: [
          { name: 'f', input_schema: {} },
          { type: 'custom', name: 'g', input_schema: {} },
        ],
      }),
    );
    anthropicMessagesClientWire.assertCostBounded(messages({ mcp_servers: [] }));
    geminiClientWire.assertCostBounded(gemini({ tools: [{ functionDeclarations: [] }] }));
  });

  it('names the refused tool and where it is', () => {
    expect(() => openaiChatClientWire.assertCostBounded(chat({ tools: [{ type: 'file_search' }] }))).toThrow(
      /tools\.0 is a tool of type file_search/,
    );
    expect(() =>
      geminiClientWire.assertCostBounded(gemini({ tools: [{ functionDeclarations: [] }, { codeExecution: {} }] })),
    ).toThrow(/tools\.1\.codeExecution/);
    expectGatewayError(
      () => openaiResponsesClientWire.assertCostBounded(responses({ prompt: { id: 'pmpt_1' } })),
      400,
      'stored_reference_refused',
    );
    expectGatewayError(
      () => anthropicMessagesClientWire.assertCostBounded(messages({ tools: [{ type: 'web_search_20250305' }] })),
      400,
      'server_tool_refused',
    );
  });
});
