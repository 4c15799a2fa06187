import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenCountSourceHeader } from '../../shared/http/token-count-source.ts';
import { thinkingSignature } from '../support/fake-upstream/signed-thinking.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * A session shaped like Claude Code's, which speaks only `/v1/messages` through the Anthropic SDK: a token count,
 * then a streamed request with its system prompt (cache breakpoints), its tools (JSON Schema with `$schema`), its
 * beta flags, `metadata.user_id`, `temperature: 1`, thinking with a budget just below `max_tokens`; the model calls
 * a tool; the result goes back with the whole assistant turn, thinking included. Once through a chat-only model and
 * once through K2.7, asserting what the upstream received at each turn.
 */
const fixture = useGatewayFixture({
  connections: [{ provider: 'acme', wire: 'openai-chat', models: ['acme-1'] }, ...alphaRoutes],
  member: { dailyTokens: 5_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

const betas = ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'fine-grained-tool-streaming-2025-05-14'];

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  // As Claude Code with ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN: the SDK sends `Authorization: Bearer`.
  client = new Anthropic({
    authToken: fixture.member.key,
    apiKey: null,
    baseURL: gateway.url,
    maxRetries: 0,
    defaultHeaders: { 'x-app': 'cli', 'user-agent': 'claude-cli/2.0.0 (external, cli)' },
  });
});

const system: Anthropic.Beta.BetaTextBlockParam[] = [
  {
    type: 'text',
    text: "You are Claude Code, Anthropic's official CLI for Claude.",
    cache_control: { type: 'ephemeral' },
  },
  { type: 'text', text: 'Working directory: /work/project' },
];
const tools: Anthropic.Beta.BetaTool[] = [
  {
    name: 'Bash',
    description: 'Executes a bash command',
    input_schema: {
      type: 'object',
      properties: { command: { type: 'string' }, description: { type: 'string' } },
      required: ['command'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
  },
  {
    name: 'Read',
    description: 'Reads a file',
    input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
  },
];
const prompt: Anthropic.Beta.BetaMessageParam = {
  role: 'user',
  content: [
    { type: 'text', text: '<system-reminder>Context follows.</system-reminder>' },
    { type: 'text', text: 'List the files here.', cache_control: { type: 'ephemeral' } },
  ],
};
const listFiles = '{"command":"ls","description":"List files"}';

/** The streamed request Claude Code sends each turn. */
function turn(model: string, messages: Anthropic.Beta.BetaMessageParam[]) {
  return client.beta.messages
    .stream({
      model,
      max_tokens: 32_000,
      system,
      tools,
      messages,
      metadata: { user_id: 'user_abc_account__session_123' },
      thinking: { type: 'enabled', budget_tokens: 31_999 },
      betas,
      ...{ temperature: 1 },
    })
    .finalMessage();
}

async function session(model: string) {
  const count = await client.beta.messages
    .countTokens({ model, system, tools, messages: [prompt], betas })
    .withResponse();
  upstream.nextResponse({ type: 'answer', toolCall: { arguments: listFiles }, reasoning: 'The user wants a listing.' });
  const first = await turn(model, [prompt]);
  const toolUse = first.content.find((block) => block.type === 'tool_use');
  const result: Anthropic.Beta.BetaMessageParam = {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: toolUse?.type === 'tool_use' ? toolUse.id : '',
        content: 'README.md\nsrc',
      },
    ],
  };
  const second = await turn(model, [prompt, { role: 'assistant', content: first.content }, result]);
  return { count, first, second, toolUse };
}

type ChatBody = { messages: Record<string, unknown>[]; tools: unknown[] } & Record<string, unknown>;

describe('a Claude-Code-shaped session', () => {
  it('through a chat-only model: translated each turn, no beta flag upstream, the reasoning sent back', async () => {
    const { count, first, second, toolUse } = await session('acme/acme-1');

    expect(count.response.headers.get(tokenCountSourceHeader)).toBe('estimate');
    expect(count.data.input_tokens).toBeGreaterThan(10);

    expect(first.stop_reason).toBe('tool_use');
    expect(first.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants a listing.', signature: '' });
    expect(toolUse).toMatchObject({ name: 'Bash', input: { command: 'ls', description: 'List files' } });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([{ type: 'text', text: 'echo: README.md\nsrc' }]);

    // Two upstream calls: the count never left the gateway.
    expect(upstream.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    for (const request of upstream.requests) {
      expect(request.headers['anthropic-beta']).toBeUndefined();
      expect(request.headers['x-app']).toBeUndefined();
    }
    const [turnOne, turnTwo] = upstream.requests.map((request) => request.json as ChatBody);
    expect(turnOne).toMatchObject({
      model: 'acme-1',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 32_000,
      temperature: 1,
      user: 'user_abc_account__session_123',
    });
    expect(turnOne).not.toHaveProperty('thinking');
    expect(turnOne?.messages).toEqual([
      {
        role: 'system',
        content: "You are Claude Code, Anthropic's official CLI for Claude.\n\nWorking directory: /work/project",
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>Context follows.</system-reminder>' },
          { type: 'text', text: 'List the files here.' },
        ],
      },
    ]);
    expect(turnOne?.tools).toEqual(
      tools.map((definition) => ({
        type: 'function',
        function: { name: definition.name, description: definition.description, parameters: definition.input_schema },
      })),
    );
    const callId = toolUse?.type === 'tool_use' ? toolUse.id : '';
    expect(turnTwo?.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'The user wants a listing.',
        tool_calls: [{ id: callId, type: 'function', function: { name: 'Bash', arguments: listFiles } }],
      },
      { role: 'tool', tool_call_id: callId, content: 'README.md\nsrc' },
    ]);
  });

  it('through K2.7: passed through with the beta flags, the signed thinking back unchanged before the tool call', async () => {
    const { count, first, second, toolUse } = await session('alpha/alpha-k2.7-code');

    expect(count.response.headers.get(tokenCountSourceHeader)).toBe('upstream');
    expect(first.stop_reason).toBe('tool_use');
    // The messages upstream thinks by itself when asked to; the behaviour's reasoning text is its own.
    expect(first.content[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants a listing.',
      signature: thinkingSignature('The user wants a listing.'),
    });
    expect(toolUse).toMatchObject({ name: 'Bash', input: { command: 'ls', description: 'List files' } });
    expect(second.content.at(-1)).toEqual({ type: 'text', text: 'echo: README.md\nsrc' });

    expect(upstream.requests.map((request) => request.path)).toEqual([
      '/alpha-messages/v1/messages/count_tokens',
      '/alpha-messages/v1/messages',
      '/alpha-messages/v1/messages',
    ]);
    for (const request of upstream.requests) {
      expect(request.headers['anthropic-beta']?.split(',')).toEqual(expect.arrayContaining(betas));
      expect(request.headers['x-app']).toBeUndefined();
      expect(request.headers.authorization).toBeUndefined();
    }
    const [, turnOne, turnTwo] = upstream.requests.map((request) => request.json as ChatBody);
    expect(turnOne).toMatchObject({
      model: 'alpha-for-coding',
      stream: true,
      max_tokens: 32_000,
      thinking: { type: 'enabled', budget_tokens: 31_999 },
      system,
      tools,
      metadata: { user_id: 'user_abc_account__session_123' },
    });
    expect(turnOne?.messages).toEqual([prompt]);
    // The assistant turn goes back exactly as the upstream gave it: the strict upstream checked the signature.
    expect(turnTwo?.messages[1]).toEqual({ role: 'assistant', content: JSON.parse(JSON.stringify(first.content)) });
  });
});
