import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type JSONValue, jsonSchema, stepCountIs, tool } from 'ai';
import type OpenAI from 'openai';
import type { Response, ResponseInputItem } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { refusal } from '../support/openai-refusal.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * Reasoning goes back only to the upstream that made it. On the Responses translation (K2.7: Responses → chat →
 * messages) the gateway gives its clients reasoning items whose `encrypted_content` is its own encoding of the
 * upstream's signed thinking, and item ids it made up (`rs_…`, `fc_…`, `msg_…`). An agent that switches model
 * midway (a fallback, the AI SDK's `prepareStep`, Codex switching models) sends that history to a Responses
 * pass-through next, whose vendor refuses encrypted content it did not issue (400 `invalid_encrypted_content`) and
 * item ids it must look up but never issued (404): the fake upstream refuses both as OpenAI does. So the gateway
 * leaves its own reasoning out and takes its ids off. The other way round, OpenAI's reasoning item sent to K2.7
 * is another model's reasoning, which a strict upstream would refuse as unsigned thinking: it is left out too.
 */
const fixture = useGatewayFixture({
  connections: [...acmeOnEveryWire, ...alphaRoutes],
  member: { dailyTokens: 5_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let openai: OpenAI;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  openai = openaiClient(gateway, fixture.member.key);
});

const k27 = 'alpha/alpha-k2.7-code';
const passThrough = 'acme/acme-r';
/** The id the fake messages upstream gives the first call of its first answer. */
const upstreamCallId = 'toolu_fake_0';
const question = 'Weather in Oslo?';
const weatherTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};
/** How a stateless reasoning client (Codex CLI) asks: nothing stored, the reasoning given back encrypted. */
const stateless = { store: false as const, include: ['reasoning.encrypted_content' as const] };

interface SentItem {
  type?: string;
  role?: string;
  id?: string;
  call_id?: string;
  encrypted_content?: string;
}

/** The input items the upstream received in request `index`. */
function sentInput(index: number): SentItem[] {
  const request = upstream.requests[index];
  if (!request) throw new Error(`the upstream received no request ${index}`);
  return (request.json as { input: SentItem[] }).input;
}

/** A K2.7 tool turn on /v1/responses, as the client keeps it: every output item, then the tool's output. */
async function k27ToolTurn(options: Partial<typeof stateless> = stateless): Promise<ResponseInputItem[]> {
  const answer = await openai.responses.create({ model: k27, input: question, tools: [weatherTool], ...options });
  const [reasoning, call] = answer.output;
  expect(reasoning).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/) });
  if (call?.type !== 'function_call') throw new Error('K2.7 did not call the tool');
  upstream.reset();
  return [
    { role: 'user', content: question },
    ...(answer.output as ResponseInputItem[]),
    { type: 'function_call_output', call_id: call.call_id, output: 'Sunny' },
  ];
}

describe('a K2.7 Responses history sent to a Responses pass-through', () => {
  it('reaches the upstream without the gateway`s reasoning item or item ids, and the upstream answers', async () => {
    const input = await k27ToolTurn();
    expect(input[1]).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^gateway-/) });
    const answer = await openai.responses.create({ model: passThrough, input, tools: [weatherTool], ...stateless });
    expect(answer.output_text).toBe('echo: Sunny');
    expect(upstream.requests[0]?.path).toBe('/responses-route/v1/responses');
    expect(sentInput(0)).toEqual([
      { role: 'user', content: question },
      {
        type: 'function_call',
        call_id: upstreamCallId,
        name: 'get_weather',
        arguments: expect.any(String),
        status: 'completed',
      },
      { type: 'function_call_output', call_id: upstreamCallId, output: 'Sunny' },
    ]);
  });

  it('so does a streamed request, and one that leaves store to the vendor`s default', async () => {
    const input = await k27ToolTurn({});
    const stream = openai.responses.stream({ model: passThrough, input, tools: [weatherTool] });
    expect((await stream.finalResponse()).output_text).toBe('echo: Sunny');
    expect(sentInput(0).map((item) => [item.type ?? item.role, item.id])).toEqual([
      ['user', undefined],
      ['function_call', undefined],
      ['function_call_output', undefined],
    ]);
  });

  it('keeps the items and ids the vendor issued, with their reasoning, beside the gateway`s', async () => {
    upstream.nextResponse({ type: 'answer', reasoning: 'Answer the greeting.', toolCall: false });
    const vendorTurn = await openai.responses.create({ model: passThrough, input: 'Hi', ...stateless });
    const input = [...(vendorTurn.output as ResponseInputItem[]), ...(await k27ToolTurn())];
    const answer = await openai.responses.create({ model: passThrough, input, tools: [weatherTool], ...stateless });
    expect(answer.output_text).toBe('echo: Sunny');
    expect(sentInput(0).map((item) => [item.type ?? item.role, item.id])).toEqual([
      ['reasoning', 'rs_fake_0'],
      ['message', 'msg_fake_0'],
      ['user', undefined],
      ['function_call', undefined],
      ['function_call_output', undefined],
    ]);
    expect(sentInput(0)[0]?.encrypted_content).toBe((vendorTurn.output[0] as SentItem).encrypted_content);
  });

  it('refuses a reference to an item the gateway made, which no server stored, before anything is sent', async () => {
    upstream.nextResponse({ type: 'answer', toolCall: false });
    const answer = await openai.responses.create({ model: k27, input: 'Hi', store: false });
    const message = answer.output.find((item) => item.type === 'message');
    upstream.reset();
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Hi' },
      { type: 'item_reference', id: message?.id ?? '' },
      { role: 'user', content: 'And then?' },
    ];
    expect(await refusal(openai.responses.create({ model: passThrough, input }))).toEqual({
      status: 400,
      code: 'stored_state_unsupported',
    });
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('an AI SDK agent that switches from K2.7 to a Responses pass-through after a tool step', () => {
  const weather = tool({
    inputSchema: jsonSchema<{ input?: string }>({ type: 'object', properties: { input: { type: 'string' } } }),
    execute: async () => 'Sunny',
  });
  const provider = () => createOpenAI({ apiKey: fixture.member.key, baseURL: gateway.baseURL });

  const cases: [string, Record<string, JSONValue>][] = [
    // The SDK refers to the reasoning item by its id: an item_reference no server can resolve.
    ['with store at its default', {}],
    // The SDK sends the reasoning item itself, with the gateway's encrypted_content.
    ['with store: false and encrypted reasoning', { store: false, include: ['reasoning.encrypted_content'] }],
  ];
  for (const [name, openaiOptions] of cases) {
    it(`${name}: the next step goes on without the gateway's reasoning`, async () => {
      const result = await generateText({
        model: provider()(k27),
        prompt: question,
        tools: { weather },
        stopWhen: stepCountIs(3),
        prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { model: provider()(passThrough) } : undefined),
        providerOptions: { openai: openaiOptions },
      });
      expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
      expect(result.text).toBe('echo: Sunny');
      expect(upstream.requests[1]?.path).toBe('/responses-route/v1/responses');
      expect(sentInput(1).map((item) => item.type ?? item.role)).toEqual([
        'user',
        'function_call',
        'function_call_output',
      ]);
    });
  }
});

describe('OpenAI`s reasoning sent to the K2.7 route', () => {
  interface SentTurn {
    role: string;
    content: string | { type: string; thinking?: string; signature?: string }[];
  }
  const sentTurns = (index: number): SentTurn[] => {
    const request = upstream.requests[index];
    if (!request) throw new Error(`the upstream received no request ${index}`);
    return (request.json as { messages: SentTurn[] }).messages;
  };

  it('is left out, and K2.7 answers and goes on with its own tool loop', async () => {
    const vendorReasoning = 'The user says hi; greet back.';
    upstream.nextResponse({ type: 'answer', reasoning: vendorReasoning, toolCall: false });
    // A Codex-shaped turn on the vendor's model: a summary and the encrypted reasoning come back.
    const vendorTurn: Response = await openai.responses.create({
      model: passThrough,
      input: 'Hi',
      reasoning: { summary: 'auto' },
      ...stateless,
    });
    expect(vendorTurn.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: vendorReasoning }],
      encrypted_content: expect.stringMatching(/^fake-encrypted\./),
    });

    const history: ResponseInputItem[] = [
      { role: 'user', content: 'Hi' },
      ...(vendorTurn.output as ResponseInputItem[]),
      { role: 'user', content: question },
    ];
    const k27Turn = await openai.responses.create({ model: k27, input: history, tools: [weatherTool], ...stateless });
    const call = k27Turn.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('K2.7 did not call the tool');
    // The vendor's turn reached K2.7's upstream as its text alone: no thinking block, which would be unsigned.
    expect(sentTurns(1)[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'echo: Hi' }] });
    expect(JSON.stringify(upstream.requests[1]?.json)).not.toContain(vendorReasoning);

    const final = await openai.responses.create({
      model: k27,
      input: [
        ...history,
        ...(k27Turn.output as ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'Sunny' },
      ],
      tools: [weatherTool],
      ...stateless,
    });
    expect(final.output_text).toBe('echo: Sunny');
    // K2.7's own turn went back with its signed thinking, which the strict upstream checked.
    const [, , , ownTurn] = sentTurns(2);
    expect(ownTurn).toMatchObject({
      role: 'assistant',
      content: [{ type: 'thinking', signature: expect.any(String) }, { type: 'tool_use' }],
    });
  });
});
