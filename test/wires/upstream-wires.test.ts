import { describe, expect, it } from 'vitest';
import { callIdCarryingReasoning } from '../../shared/translation/chat-to-messages/reasoning-in-call-id.ts';
import { anthropicMessagesUpstreamWire } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { geminiUpstreamWire } from '../../shared/wires/gemini/gemini-upstream-wire.ts';
import { openaiChatUpstreamWire } from '../../shared/wires/openai-chat/openai-chat-upstream-wire.ts';
import { openaiResponsesUpstreamWire } from '../../shared/wires/openai-responses/openai-responses-upstream-wire.ts';
import { canonicalBaseUrl, joinUrl, type UpstreamWireFormat } from '../../shared/wires/upstream-wire-format.ts';
import { upstreamWireFor } from '../../shared/wires/upstream-wires.ts';
import type { ConnectionWire as UpstreamWire } from '../../shared/wires/wire-names.ts';

function urlOf(wire: UpstreamWireFormat<unknown, unknown>, baseUrl: string): string {
  return wire.buildUpstreamRequest({
    target: { baseUrl, credential: 'provider-secret' },
    body: {},
    upstreamModel: 'm',
    stream: false,
    operation: 'generate',
  }).url;
}

describe('joinUrl', () => {
  it('puts a path under a base URL however many slashes the base URL ends with', () => {
    expect(joinUrl('https://engine.internal/v1', '/chat/completions')).toBe(
      'https://engine.internal/v1/chat/completions',
    );
    expect(joinUrl('https://engine.internal/v1/', '/responses')).toBe('https://engine.internal/v1/responses');
    expect(joinUrl('https://engine.internal/v1//', '/messages')).toBe('https://engine.internal/v1/messages');
  });

  it('is how every wire addresses its upstream', () => {
    const base = 'https://engine.internal/v1//';
    expect(urlOf(openaiChatUpstreamWire, base)).toBe('https://engine.internal/v1/chat/completions');
    expect(urlOf(openaiResponsesUpstreamWire, base)).toBe('https://engine.internal/v1/responses');
    expect(urlOf(anthropicMessagesUpstreamWire, base)).toBe('https://engine.internal/v1/messages');
    expect(urlOf(geminiUpstreamWire, base)).toBe('https://engine.internal/v1/models/m:generateContent');
  });
});

/**
 * Each row: a base URL as that provider documents it for its own SDK (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, the
 * Google SDK's baseUrl), the wire, and where a generation goes. Connections stored under the earlier rule
 * (`…/v1` for messages, `…/v1beta` for generate-content) reach the same address.
 */
const documentedBaseUrls: readonly (readonly [label: string, wire: UpstreamWire, baseUrl: string, url: string])[] = [
  ['OpenAI', 'openai-chat', 'https://api.openai.com/v1', 'https://api.openai.com/v1/chat/completions'],
  ['OpenAI Responses', 'openai-responses', 'https://api.openai.com/v1', 'https://api.openai.com/v1/responses'],
  [
    'Azure OpenAI (v1 API)',
    'openai-responses',
    'https://my-resource.openai.azure.com/openai/v1/',
    'https://my-resource.openai.azure.com/openai/v1/responses',
  ],
  ['OpenRouter', 'openai-chat', 'https://openrouter.ai/api/v1', 'https://openrouter.ai/api/v1/chat/completions'],
  ['DeepSeek', 'openai-chat', 'https://api.deepseek.com', 'https://api.deepseek.com/chat/completions'],
  [
    'GLM',
    'openai-chat',
    'https://open.bigmodel.cn/api/paas/v4/',
    'https://open.bigmodel.cn/api/paas/v4/chat/completions',
  ],
  ['vLLM', 'openai-chat', 'http://localhost:8000/v1', 'http://localhost:8000/v1/chat/completions'],
  ['Ollama', 'openai-chat', 'http://localhost:11434/v1/', 'http://localhost:11434/v1/chat/completions'],
  ['Anthropic', 'anthropic-messages', 'https://api.anthropic.com', 'https://api.anthropic.com/v1/messages'],
  [
    'Anthropic, as stored before',
    'anthropic-messages',
    'https://api.anthropic.com/v1',
    'https://api.anthropic.com/v1/messages',
  ],
  [
    'Anthropic with a slash',
    'anthropic-messages',
    'https://api.anthropic.com/v1/',
    'https://api.anthropic.com/v1/messages',
  ],
  [
    'DeepSeek, messages-format',
    'anthropic-messages',
    'https://api.deepseek.com/anthropic',
    'https://api.deepseek.com/anthropic/v1/messages',
  ],
  ['Ollama, messages-format', 'anthropic-messages', 'http://localhost:11434', 'http://localhost:11434/v1/messages'],
  [
    'Google AI Studio',
    'gemini',
    'https://generativelanguage.googleapis.com',
    'https://generativelanguage.googleapis.com/v1beta/models/m:generateContent',
  ],
  [
    'Google AI Studio, as stored before',
    'gemini',
    'https://generativelanguage.googleapis.com/v1beta/',
    'https://generativelanguage.googleapis.com/v1beta/models/m:generateContent',
  ],
  [
    'Google AI Studio, the stable API',
    'gemini',
    'https://generativelanguage.googleapis.com/v1',
    'https://generativelanguage.googleapis.com/v1/models/m:generateContent',
  ],
];

describe('base URLs as each provider’s SDK takes them', () => {
  it.each(documentedBaseUrls)('%s: %s at %s', async (_label, wire, baseUrl, url) => {
    const format = await upstreamWireFor(wire);
    expect(urlOf(format, baseUrl)).toBe(url);
    // The form a new connection is stored in reaches the same address.
    expect(urlOf(format, canonicalBaseUrl(format.baseUrl, baseUrl))).toBe(url);
  });

  it('stores a base URL without trailing slashes and without the version the SDK appends', async () => {
    const stored = async (wire: UpstreamWire, baseUrl: string) =>
      canonicalBaseUrl((await upstreamWireFor(wire)).baseUrl, baseUrl);
    expect(await stored('anthropic-messages', 'https://api.anthropic.com/v1/')).toBe('https://api.anthropic.com');
    expect(await stored('anthropic-messages', 'https://api.anthropic.com')).toBe('https://api.anthropic.com');
    expect(await stored('gemini', 'https://generativelanguage.googleapis.com/v1beta')).toBe(
      'https://generativelanguage.googleapis.com',
    );
    // Another version is the choice of another API, and stays; so does a host that is named like the version.
    expect(await stored('gemini', 'https://generativelanguage.googleapis.com/v1')).toBe(
      'https://generativelanguage.googleapis.com/v1',
    );
    expect(await stored('anthropic-messages', 'http://v1')).toBe('http://v1');
    // OpenAI's base URL carries its version: nothing is taken off.
    expect(await stored('openai-chat', 'https://api.openai.com/v1/')).toBe('https://api.openai.com/v1');
  });

  it('puts each wire’s model list under the same address, with the vendor’s own authentication', async () => {
    const target = { baseUrl: 'https://engine.internal', credential: 'provider-secret' };
    const listOf = async (wire: UpstreamWire, baseUrl = target.baseUrl) =>
      (await upstreamWireFor(wire)).modelList?.request({ ...target, baseUrl });
    expect(await listOf('openai-chat', 'https://engine.internal/v1')).toMatchObject({
      method: 'GET',
      url: 'https://engine.internal/v1/models',
      headers: { authorization: 'Bearer provider-secret' },
    });
    expect(await listOf('anthropic-messages')).toMatchObject({
      method: 'GET',
      url: 'https://engine.internal/v1/models?limit=1000',
      headers: { 'x-api-key': 'provider-secret', 'anthropic-version': '2023-06-01' },
    });
    expect((await listOf('anthropic-messages', 'https://engine.internal/v1'))?.url).toBe(
      'https://engine.internal/v1/models?limit=1000',
    );
    expect(await listOf('gemini')).toMatchObject({
      method: 'GET',
      url: 'https://engine.internal/v1beta/models?pageSize=1000',
      headers: { 'x-goog-api-key': 'provider-secret' },
    });
  });

  it('reads the ids of each wire’s model list, and whether more pages follow', async () => {
    const read = async (wire: UpstreamWire, answer: unknown) => (await upstreamWireFor(wire)).modelList?.read(answer);
    expect(
      await read('openai-responses', { object: 'list', data: [{ id: 'a', object: 'model' }, { id: 'b' }] }),
    ).toEqual({
      ids: ['a', 'b'],
      more: false,
    });
    expect(await read('anthropic-messages', { data: [{ type: 'model', id: 'claude-x' }], has_more: true })).toEqual({
      ids: ['claude-x'],
      more: true,
    });
    expect(await read('gemini', { models: [{ name: 'models/gemini-x' }], nextPageToken: 'next' })).toEqual({
      ids: ['gemini-x'],
      more: true,
    });
    expect(await read('gemini', {})).toEqual({ ids: [], more: false });
    expect(await read('openai-chat', { error: { message: 'no' } })).toBeUndefined();
    expect(await read('anthropic-messages', 'not json')).toBeUndefined();
  });
});

describe('call ids that carry reasoning, on every wire that has call ids', () => {
  const carrier = (upstreamId: string) =>
    callIdCarryingReasoning(upstreamId, [{ type: 'thinking', thinking: 'Plan.', signature: 'sig' }]);
  const bodies: readonly (readonly [
    UpstreamWireFormat<unknown, unknown>,
    (id: (upstreamId: string) => string) => Record<string, unknown>,
  ])[] = [
    [
      openaiChatUpstreamWire,
      (id) => ({
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: id('call_1'), type: 'function', function: { name: 'f', arguments: '{}' } },
              { id: id('call_2'), type: 'custom', custom: { name: 'apply_patch', input: 'x' } },
            ],
          },
          { role: 'tool', tool_call_id: id('call_1'), content: 'one' },
          { role: 'tool', tool_call_id: id('call_2'), content: 'two' },
        ],
      }),
    ],
    [
      openaiResponsesUpstreamWire,
      (id) => ({
        input: [
          { role: 'user', content: 'go' },
          { type: 'function_call', call_id: id('call_1'), name: 'f', arguments: '{}' },
          { type: 'function_call_output', call_id: id('call_1'), output: 'one' },
          { type: 'custom_tool_call', call_id: id('call_2'), name: 'apply_patch', input: 'x' },
          { type: 'custom_tool_call_output', call_id: id('call_2'), output: 'two' },
        ],
      }),
    ],
    [
      anthropicMessagesUpstreamWire,
      (id) => ({
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: id('toolu_1'), name: 'f', input: {} },
              { type: 'tool_use', id: id('toolu_2'), name: 'f', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: id('toolu_1'), content: 'one' },
              { type: 'tool_result', tool_use_id: id('toolu_2'), content: 'two' },
            ],
          },
        ],
      }),
    ],
  ];

  for (const [wire, body] of bodies) {
    it(`${wire.wire}: the upstream gets its own ids back, and the rest of the body as it was`, () => {
      const sent = wire.buildUpstreamRequest({
        target: { baseUrl: 'https://engine.internal/v1', credential: 'provider-secret' },
        body: body(carrier),
        upstreamModel: 'm',
        stream: false,
        operation: 'generate',
      }).body;
      const plain = wire.buildUpstreamRequest({
        target: { baseUrl: 'https://engine.internal/v1', credential: 'provider-secret' },
        body: body((upstreamId) => upstreamId),
        upstreamModel: 'm',
        stream: false,
        operation: 'generate',
      }).body;
      expect(sent).not.toContain('_gwr1_');
      expect(JSON.parse(sent)).toEqual(JSON.parse(plain));
    });
  }
});
