import { beforeAll, describe, expect, it } from 'vitest';
import { thinkingSignature } from '../support/fake-upstream/signed-thinking.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { parseSseText } from '../support/sse-fixtures.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * A session shaped like Codex CLI's against a chat-only model: streamed Responses with `store: false`,
 * `instructions`, its tools (a shell function, `apply_patch` as a custom tool with a Lark grammar, `update_plan`,
 * and the hosted web search it offers by default), `include: ["reasoning.encrypted_content"]` and a reasoning
 * summary. Each turn sends the whole conversation back, as Codex does: the earlier input, the output items it
 * kept from `response.output_item.done` (without their ids), and the tools' outputs. What the chat upstream
 * received is checked at every turn.
 */
const fixture = useGatewayFixture({
  connections: [{ provider: 'acme', wire: 'openai-chat', models: ['acme-coder'] }, ...alphaRoutes],
  member: { dailyTokens: 5_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

const applyPatchGrammar = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\n';
const codexTools = [
  {
    type: 'function',
    name: 'shell',
    description: 'Runs a shell command and returns its output.',
    strict: false,
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'array', items: { type: 'string' } },
        workdir: { type: 'string' },
        timeout_ms: { type: 'number' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
  {
    type: 'custom',
    name: 'apply_patch',
    description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
    format: { type: 'grammar', syntax: 'lark', definition: applyPatchGrammar },
  },
  {
    type: 'function',
    name: 'update_plan',
    description: 'Updates the task plan.',
    strict: false,
    parameters: {
      type: 'object',
      properties: { plan: { type: 'array', items: { type: 'object' } } },
      required: ['plan'],
      additionalProperties: false,
    },
  },
  { type: 'web_search', external_web_access: false },
];

const sessionId = '0199a213-81c0-7800-8aa1-bbab2a035a53';
const instructions = 'You are Codex, a coding agent. Keep going until the task is done.';
const firstInput = [
  {
    type: 'message',
    role: 'developer',
    content: [{ type: 'input_text', text: '<permissions>workspace-write</permissions>' }],
  },
  {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: '<environment_context>cwd: /repo</environment_context>' }],
  },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Add a greeting file.' }] },
];

interface StreamedEvent {
  type: string;
  sequence_number: number;
  item?: Record<string, unknown> & { type: string };
  response?: { id: string; status: string; usage?: Record<string, unknown> };
  delta?: string;
}

/** One turn as Codex sends it; the events it reads back, parsed from the server-sent events. */
async function codexTurn(
  input: unknown[],
  model = 'acme/acme-coder',
): Promise<{ events: StreamedEvent[]; requestId: string }> {
  const response = await fetch(`${gateway.baseURL}/responses`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${fixture.member.key}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      originator: 'codex_cli_rs',
      session_id: sessionId,
    },
    body: JSON.stringify({
      model,
      instructions,
      input,
      tools: codexTools,
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: sessionId,
    }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const events = parseSseText(await response.text()).map((message) => {
    const event = JSON.parse(message.data) as StreamedEvent;
    expect(message.event).toBe(event.type);
    return event;
  });
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, position) => position));
  return { events, requestId: response.headers.get('x-request-id') ?? '' };
}

/** The items Codex keeps: each `response.output_item.done`, sent back later without the ids it does not serialize. */
function keptItems(events: readonly StreamedEvent[]): Record<string, unknown>[] {
  return events.flatMap((event) => {
    if (event.type !== 'response.output_item.done' || !event.item) return [];
    const { id: _id, status: _status, ...kept } = event.item;
    // Codex does not send a reasoning item's raw text back; the summary and the encrypted state it does.
    if (kept.type === 'reasoning') delete kept.content;
    return [kept];
  });
}

interface ChatSent {
  messages: {
    role: string;
    content: unknown;
    reasoning_content?: string;
    tool_calls?: unknown[];
    tool_call_id?: string;
  }[];
  tools: { function: { name: string; parameters: Record<string, unknown> } }[];
  [field: string]: unknown;
}
const sent = (index: number) => upstream.requests[index]?.json as ChatSent;

describe('a Codex-shaped session through a chat-only model', () => {
  it('runs a shell call, then apply_patch, then a final answer, with reasoning kept across turns', async () => {
    const patch = '*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** End Patch\n';
    upstream.setScenario((request) => {
      switch (request.index) {
        case 0:
          return {
            type: 'answer',
            reasoning: 'List the files first.',
            toolCall: { name: 'shell', arguments: '{"command":["ls"]}' },
          };
        case 1:
          return {
            type: 'answer',
            reasoning: 'Now write the file.',
            toolCall: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) },
          };
        default:
          return { type: 'answer', text: 'Added hello.txt.', textChunks: ['Added ', 'hello.txt.'] };
      }
    });

    // Turn 1: the model reasons, then calls the shell.
    const first = await codexTurn(firstInput);
    expect(first.events.slice(0, 2).map((event) => event.type)).toEqual(['response.created', 'response.in_progress']);
    expect(
      first.events
        .filter((event) => event.type === 'response.reasoning_summary_text.delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe('List the files first.');
    expect(first.events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    const firstItems = keptItems(first.events);
    expect(firstItems).toEqual([
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'List the files first.' }],
        encrypted_content: expect.any(String),
      },
      { type: 'function_call', call_id: 'call_fake_0', name: 'shell', arguments: '{"command":["ls"]}' },
    ]);
    expect(sent(0)).toMatchObject({
      model: 'acme-coder',
      stream: true,
      stream_options: { include_usage: true },
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning_effort: 'medium',
      prompt_cache_key: sessionId,
      messages: [
        { role: 'system', content: instructions },
        { role: 'system', content: '<permissions>workspace-write</permissions>' },
        { role: 'user', content: '<environment_context>cwd: /repo</environment_context>' },
        { role: 'user', content: 'Add a greeting file.' },
      ],
    });
    // The hosted web search is left out; apply_patch is a function of one string, its grammar in the description.
    expect(sent(0).tools.map((tool) => tool.function.name)).toEqual(['shell', 'apply_patch', 'update_plan']);
    expect(JSON.stringify(sent(0).tools[1]?.function.parameters)).toContain('begin_patch hunk+ end_patch');
    expect(sent(0)).not.toHaveProperty('store');
    expect(sent(0)).not.toHaveProperty('include');

    // Turn 2: the shell's output goes back with everything before it; the model answers with apply_patch.
    const secondInput = [
      ...firstInput,
      ...firstItems,
      { type: 'function_call_output', call_id: 'call_fake_0', output: 'README.md\nsrc\n' },
    ];
    const second = await codexTurn(secondInput);
    expect(sent(1).messages.slice(4)).toEqual([
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'List the files first.',
        tool_calls: [
          { id: 'call_fake_0', type: 'function', function: { name: 'shell', arguments: '{"command":["ls"]}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_fake_0', content: 'README.md\nsrc\n' },
    ]);
    const secondItems = keptItems(second.events);
    expect(secondItems[1]).toEqual({
      type: 'custom_tool_call',
      call_id: 'call_fake_1',
      name: 'apply_patch',
      input: patch,
    });
    expect(second.events.map((event) => event.type)).toContain('response.custom_tool_call_input.done');

    // Turn 3: the patch's result goes back; the model says it is done.
    const third = await codexTurn([
      ...secondInput,
      ...secondItems,
      {
        type: 'custom_tool_call_output',
        call_id: 'call_fake_1',
        output: 'Success. Updated the following files:\nA hello.txt\n',
      },
    ]);
    expect(sent(2).messages.slice(6)).toEqual([
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Now write the file.',
        tool_calls: [
          {
            id: 'call_fake_1',
            type: 'function',
            function: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_fake_1', content: 'Success. Updated the following files:\nA hello.txt\n' },
    ]);
    expect(keptItems(third.events)).toEqual([
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Added hello.txt.', annotations: [] }],
      },
    ]);
    expect(third.events.at(-1)?.response?.usage).toMatchObject({
      input_tokens: 17,
      input_tokens_details: { cached_tokens: 5 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 0 },
    });

    for (const turn of [first, second, third]) {
      const record = await settledRecord(gateway.host.services, turn.requestId);
      expect(record).toMatchObject({ wire: 'openai-responses', stream: true, state: 'completed', source: 'measured' });
    }
  });

  it('fails a turn the upstream cuts short with response.failed, which is what Codex reads', async () => {
    upstream.nextResponse({ type: 'answer', reasoning: 'Thinking.', resetAfterChunks: 2 });
    const { events } = await codexTurn(firstInput);
    expect(events.map((event) => event.type).slice(-2)).toEqual(['error', 'response.failed']);
    expect(events.at(-1)).toMatchObject({ response: { status: 'failed' } });
  });
});

/**
 * The same session through K2.7 (responses → chat → messages), whose upstream signs its reasoning and, with thinking
 * on, refuses a tool loop whose assistant turn does not begin with its signed thinking, unchanged (the fake upstream
 * checks as the vendor does). The signed and redacted blocks travel in each reasoning item's `encrypted_content`,
 * which Codex keeps and sends back, and reach the upstream before the turn's tool call.
 */
describe('a Codex-shaped session through K2.7, whose upstream checks signed thinking', () => {
  interface MessagesSent {
    messages: { role: string; content: { type: string; signature?: string; data?: string }[] }[];
    thinking?: { type: string };
  }
  const sentTurns = (index: number) => (upstream.requests[index]?.json as MessagesSent | undefined)?.messages ?? [];
  const summaryOf = (item: Record<string, unknown> | undefined) =>
    (item?.summary as { text: string }[] | undefined)?.map((part) => part.text).join('') ?? '';

  it('streams two tool turns and a final answer, each turn`s thinking going back signed', async () => {
    upstream.setScenario((request) => {
      switch (request.index) {
        case 0:
          return {
            type: 'answer',
            redactedThinking: true,
            toolCall: { name: 'shell', arguments: '{"command":["ls"]}' },
          };
        case 1:
          return { type: 'answer', toolCall: { name: 'shell', arguments: '{"command":["cat","README.md"]}' } };
        default:
          return { type: 'answer', text: 'The README says hello.' };
      }
    });

    const first = await codexTurn(firstInput, 'alpha-k2.7-code');
    const firstItems = keptItems(first.events);
    expect(firstItems.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    expect(upstream.requests[0]?.json).toMatchObject({ thinking: { type: 'enabled' } });
    const reasoningText = summaryOf(firstItems[0]);
    expect(reasoningText).toMatch(/^considering: .*Add a greeting file\.$/);
    const firstCall = String(firstItems[1]?.call_id);

    const secondInput = [
      ...firstInput,
      ...firstItems,
      { type: 'function_call_output', call_id: firstCall, output: 'README.md\n' },
    ];
    const second = await codexTurn(secondInput, 'alpha-k2.7-code');
    expect(second.events.at(-1)).toMatchObject({ type: 'response.completed' });
    // The assistant turn begins with the upstream's own blocks, unchanged: the signed thinking, the redacted one.
    expect(sentTurns(1)[1]?.content).toEqual([
      { type: 'thinking', thinking: reasoningText, signature: thinkingSignature(reasoningText) },
      { type: 'redacted_thinking', data: expect.stringMatching(/^fake-redacted\./) },
      // The upstream gets its own id back; the one Codex holds also carries the reasoning (reasoning-in-call-id.ts).
      expect.objectContaining({ type: 'tool_use', id: 'toolu_fake_0' }),
    ]);
    expect(firstCall).toMatch(/^toolu_fake_0_gwr1_[\w-]+$/);
    const secondItems = keptItems(second.events);
    expect(secondItems.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const secondCall = String(secondItems[1]?.call_id);

    const third = await codexTurn(
      [...secondInput, ...secondItems, { type: 'function_call_output', call_id: secondCall, output: 'hello' }],
      'alpha-k2.7-code',
    );
    expect(third.events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    expect(keptItems(third.events).at(-1)).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: 'The README says hello.' }],
    });
    const secondReasoning = summaryOf(secondItems[0]);
    expect(sentTurns(2)[3]?.content).toEqual([
      { type: 'thinking', thinking: secondReasoning, signature: thinkingSignature(secondReasoning) },
      expect.objectContaining({ type: 'tool_use', id: 'toolu_fake_1' }),
    ]);
  });

  /** The second turn of a client that leaves the reasoning items out, with the call's id as `callId` makes it. */
  async function turnWithoutReasoningItems(callId: (id: string) => string) {
    upstream.nextResponse({ type: 'answer', toolCall: { name: 'shell', arguments: '{"command":["ls"]}' } });
    const first = await codexTurn(firstInput, 'alpha-k2.7-code');
    const withoutReasoning = keptItems(first.events)
      .filter((item) => item.type !== 'reasoning')
      .map((item) => ({ ...item, call_id: callId(String(item.call_id)) }));
    const response = await fetch(`${gateway.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.member.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'alpha-k2.7-code',
        input: [
          ...firstInput,
          ...withoutReasoning,
          { type: 'function_call_output', call_id: withoutReasoning[0]?.call_id, output: 'x' },
        ],
        tools: codexTools.slice(0, 1),
        store: false,
      }),
    });
    return { response, reasoning: summaryOf(keptItems(first.events)[0]) };
  }

  it('goes on when the reasoning items are left out: the call id gives the signed thinking back', async () => {
    const { response, reasoning } = await turnWithoutReasoningItems((id) => id);
    expect(response.status).toBe(200);
    expect(sentTurns(1)[1]?.content).toEqual([
      { type: 'thinking', thinking: reasoning, signature: thinkingSignature(reasoning) },
      expect.objectContaining({ type: 'tool_use', id: 'toolu_fake_0' }),
    ]);
  });

  it('is refused by the strict upstream when nothing gives the reasoning back', async () => {
    const { response } = await turnWithoutReasoningItems((id) => id.split('_gwr1_')[0] ?? id);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('must start with a thinking block');
  });
});
