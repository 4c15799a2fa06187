import { beforeAll, describe, expect, it } from 'vitest';
import { encryptedReasoning } from '../support/fake-upstream/responses-reasoning.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, useGatewayFixture } from '../support/gateway-fixture.ts';
import { postJson, type TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement } from '../support/usage-records.ts';

/**
 * Spec §8 rule 4 and issue 11: under a finite token allowance, whatever the reservation cannot bound — tools that
 * run on the provider's side (search, code execution, file search, computer use, MCP...) — is refused with 400
 * before anything is reserved or sent. Function tools (and Anthropic custom tools) keep working, and a member
 * without a daily allowance may still use every tool.
 */
const fixture = useGatewayFixture({
  connections: acmeOnEveryWire,
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

const post = (key: string, path: string, body: Record<string, unknown>) => postJson(gateway, key, path, body);

const chatPath = '/v1/chat/completions';
const responsesPath = '/v1/responses';
const messagesPath = '/v1/messages';
const geminiPath = '/v1beta/models/acme/acme-g:generateContent';

const chat = (extra: Record<string, unknown>) => ({
  model: 'acme/acme-1',
  messages: [{ role: 'user', content: 'Find it.' }],
  ...extra,
});
const responses = (extra: Record<string, unknown>) => ({ model: 'acme/acme-r', input: 'Find it.', ...extra });
const messages = (extra: Record<string, unknown>) => ({
  model: 'acme/acme-m',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'Find it.' }],
  ...extra,
});
const gemini = (extra: Record<string, unknown>) => ({ contents: [{ parts: [{ text: 'Find it.' }] }], ...extra });

const functionParameters = { type: 'object', properties: { city: { type: 'string' } } };

/** What runs on the provider's side, by wire, as the official API references list it. */
const refused: { name: string; path: string; body: Record<string, unknown> }[] = [
  {
    name: 'chat: a file_search tool',
    path: chatPath,
    body: chat({ tools: [{ type: 'file_search', file_search: {} }] }),
  },
  { name: 'chat: web_search_options', path: chatPath, body: chat({ web_search_options: {} }) },
  {
    name: 'chat: a web_search tool beside a function tool',
    path: chatPath,
    body: chat({
      tools: [
        { type: 'function', function: { name: 'f', parameters: functionParameters } },
        { type: 'web_search_preview' },
      ],
    }),
  },
  ...['file_search', 'web_search', 'web_search_preview', 'code_interpreter', 'computer_use_preview', 'mcp']
    .concat(['image_generation', 'local_shell', 'a_tool_announced_tomorrow'])
    .map((type) => ({
      name: `responses: a ${type} tool`,
      path: responsesPath,
      body: responses({ tools: [{ type }] }),
    })),
  { name: 'responses: a tool without a type', path: responsesPath, body: responses({ tools: [{ name: 'f' }] }) },
  ...['web_search_20250305', 'web_fetch_20250910', 'code_execution_20250825', 'computer_20250124']
    .concat(['bash_20250124', 'text_editor_20250728', 'memory_20250818', 'mcp_toolset'])
    .map((type) => ({
      name: `messages: the ${type} tool`,
      path: messagesPath,
      body: messages({ tools: [{ type, name: 'server_side' }] }),
    })),
  {
    name: 'messages: a tool that is not a definition (a bare name)',
    path: messagesPath,
    body: messages({ tools: ['web_search_20250305'] }),
  },
  {
    name: 'messages: an MCP connector (mcp_servers)',
    path: messagesPath,
    body: messages({ mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'example' }] }),
  },
  ...['googleSearch', 'google_search', 'googleSearchRetrieval', 'urlContext', 'url_context', 'codeExecution']
    .concat(['fileSearch', 'computerUse', 'googleMaps', 'enterpriseWebSearch', 'retrieval'])
    .map((field) => ({
      name: `generate-content: ${field}`,
      path: geminiPath,
      body: gemini({ tools: [{ [field]: {} }] }),
    })),
  {
    name: 'generate-content: googleSearch in the same tool as function declarations',
    path: geminiPath,
    body: gemini({ tools: [{ functionDeclarations: [{ name: 'f' }], googleSearch: {} }] }),
  },
];

/**
 * Responses input items that the vendor fills in from what it stored (spec §8 rule 4): sent through to a Responses
 * connection they would add input no estimate saw; and a background response, which the vendor generates after the
 * request has ended (past its deadline, a client that left and its lease). (A translation to chat refuses an
 * item_reference and background always, and reads a reasoning item itself.)
 */
/** Items the vendor stored under ids it issued (the fake refuses ids and state it did not issue, as OpenAI does). */
const storedItems: { name: string; input: unknown[]; extra?: Record<string, unknown> }[] = [
  {
    name: 'a background response (generated after the request ends, to be polled from storage)',
    input: [{ role: 'user', content: 'Find it.' }],
    extra: { background: true },
  },
  { name: 'an item_reference', input: [{ type: 'item_reference', id: 'msg_fake_0' }] },
  {
    name: 'a reasoning item sent by its id alone',
    input: [
      { role: 'user', content: 'Find it.' },
      { type: 'reasoning', id: 'rs_fake_0', summary: [{ type: 'summary_text', text: 'Looked.' }] },
      { role: 'user', content: 'And again.' },
    ],
  },
];

const accepted: { name: string; path: string; body: Record<string, unknown> }[] = [
  {
    name: 'chat: function tools',
    path: chatPath,
    body: chat({ tools: [{ type: 'function', function: { name: 'get_weather', parameters: functionParameters } }] }),
  },
  {
    name: 'responses: function tools',
    path: responsesPath,
    body: responses({ tools: [{ type: 'function', name: 'get_weather', parameters: functionParameters }] }),
  },
  {
    name: 'responses: a reasoning item that carries its encrypted_content',
    path: responsesPath,
    body: responses({
      input: [
        { role: 'user', content: 'Find it.' },
        { type: 'reasoning', id: 'rs_fake_0', summary: [], encrypted_content: encryptedReasoning('Looked.') },
        { role: 'user', content: 'And again.' },
      ],
    }),
  },
  {
    name: 'messages: custom tools, with and without their type',
    path: messagesPath,
    body: messages({
      tools: [
        { name: 'get_weather', input_schema: functionParameters },
        { type: 'custom', name: 'get_time', input_schema: { type: 'object' } },
      ],
    }),
  },
  {
    name: 'generate-content: function declarations, in either spelling',
    path: geminiPath,
    body: gemini({
      tools: [{ functionDeclarations: [{ name: 'get_weather' }] }, { function_declarations: [{ name: 'get_time' }] }],
    }),
  },
];

describe('under a finite allowance', () => {
  for (const { name, path, body } of refused) {
    it(`refuses ${name} with 400 before anything is reserved or sent`, async () => {
      const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
      const response = await post(key, path, body);
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(text).toContain('server_tool_refused');
      expect(upstream.requests).toHaveLength(0);
      const member = await memberAfterSettlement(gateway.host.services, memberId);
      expect(member.tokenDays).toEqual({});
      expect(member.leases).toEqual({});
    });
  }

  for (const { name, input, extra } of storedItems) {
    it(`refuses ${name} in a Responses request sent through, before anything is reserved or sent`, async () => {
      const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
      const response = await post(key, responsesPath, responses({ input, ...extra }));
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(text).toContain('stored_reference_refused');
      expect(upstream.requests).toHaveLength(0);
      const member = await memberAfterSettlement(gateway.host.services, memberId);
      expect(member.tokenDays).toEqual({});
    });
  }

  for (const { name, path, body } of accepted) {
    it(`accepts ${name}`, async () => {
      const { key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
      const response = await post(key, path, body);
      expect(response.status, await response.text()).toBe(200);
      expect(upstream.requests).toHaveLength(1);
    });
  }
});

describe('without a daily allowance', () => {
  it.each(storedItems)('passes $name through to the provider', async ({ input, extra }) => {
    const { key } = await gateway.admin.createMemberWithKey({});
    const response = await post(key, responsesPath, responses({ input, ...extra }));
    expect(response.status, await response.text()).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it.each(refused.slice(0, 3))('passes $name through to the provider', async ({ path, body }) => {
    const { key } = await gateway.admin.createMemberWithKey({});
    const response = await post(key, path, body);
    expect(response.status, await response.text()).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });
});
