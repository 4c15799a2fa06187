import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../../shared/accounting/estimate-input-tokens.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { postJson, type TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * The reservation is an upper bound of what the upstream may produce. Generated requests of every accepted shape
 * — each client wire, passed through and translated (chat → messages on K2.7; messages → chat on a declared chat
 * model and on K3; messages on K2.7 under thinking mode's rules; Responses → chat on any chat connection and on K3,
 * and on to messages on K2.7), streamed or not, with or without a cap of their own, with `n` / `candidateCount`, with
 * function tools, under a member's output policy — go to a fake upstream that always bills the most its request
 * allows (`usage: 'most-allowed'`: every answer as long as the cap it received, 50,000 tokens each without one, and
 * its text counted with o200k_base as input). Measured usage never exceeds the reservation except by the input
 * estimate's error: the output alone always fits in what the reservation holds beyond the input estimate.
 */
const fixture = useGatewayFixture({
  connections: [...acmeOnEveryWire, ...alphaRoutes],
});
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

const corpus = [
  'english-prose.txt',
  'source-code.ts.txt',
  'json.json',
  'cjk.txt',
  'emoji.txt',
  'other-scripts.txt',
].map((name) => [...readFileSync(new URL(`../fixtures/token-corpus/${name}`, import.meta.url), 'utf8')]);

/** A piece of the token corpus (whole code points), or short generated text. */
const promptText = fc.oneof(
  fc
    .record({
      file: fc.nat({ max: corpus.length - 1 }),
      start: fc.nat({ max: 2_000 }),
      length: fc.integer({ min: 1, max: 600 }),
    })
    .map(({ file, start, length }) => {
      const characters = corpus[file] ?? [];
      const from = start % Math.max(1, characters.length);
      return characters.slice(from, from + length).join('') || 'hello';
    }),
  fc.string({ minLength: 1, maxLength: 300 }),
);

interface Shape {
  text: string;
  stream: boolean;
  /** The client's own cap on each answer; never above the member's policy (that would be refused, 403). */
  cap: number | undefined;
  answers: number;
  withTool: boolean;
  chatCapField: 'max_tokens' | 'max_completion_tokens' | 'both';
}

interface Route {
  name: string;
  /** Whether the route can take more than one answer. */
  manyAnswers: boolean;
  request(shape: Shape): { path: string; body: Record<string, unknown> };
}

const parameters = { type: 'object', properties: { city: { type: 'string' } } };

function chatBody(model: string, shape: Shape): Record<string, unknown> {
  const caps =
    shape.cap === undefined
      ? {}
      : shape.chatCapField === 'both'
        ? { max_tokens: shape.cap, max_completion_tokens: shape.cap }
        : { [shape.chatCapField]: shape.cap };
  return {
    model,
    messages: [
      { role: 'system', content: 'Answer at length.' },
      { role: 'user', content: shape.text },
    ],
    stream: shape.stream,
    ...caps,
    ...(shape.answers > 1 ? { n: shape.answers } : {}),
    ...(shape.withTool ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters } }] } : {}),
  };
}

function messagesBody(model: string, shape: Shape): Record<string, unknown> {
  return {
    model,
    system: 'Answer at length.',
    messages: [{ role: 'user', content: shape.text }],
    stream: shape.stream,
    ...(shape.cap === undefined ? {} : { max_tokens: shape.cap }),
    ...(shape.withTool ? { tools: [{ name: 'get_weather', input_schema: parameters }] } : {}),
  };
}

/**
 * With a tool, the input is a list of items: the question, the model's call and its output, as agents send them —
 * except where the upstream requires the call's signed thinking before it (`priorCall: false`: K2.7 in thinking
 * mode refuses a tool loop whose thinking was not sent back, which a Responses client cannot send).
 */
function responsesBody(model: string, shape: Shape, priorCall = true): Record<string, unknown> {
  const call = { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' };
  return {
    model,
    instructions: 'Answer at length.',
    input:
      shape.withTool && priorCall
        ? [
            { role: 'user', content: shape.text },
            call,
            { type: 'function_call_output', call_id: 'call_1', output: 'cold' },
          ]
        : shape.text,
    stream: shape.stream,
    ...(shape.cap === undefined ? {} : { max_output_tokens: shape.cap }),
    ...(shape.withTool ? { tools: [{ type: 'function', name: 'get_weather', parameters }] } : {}),
  };
}

const routes: Route[] = [
  {
    name: 'chat',
    manyAnswers: true,
    request: (shape) => ({ path: '/v1/chat/completions', body: chatBody('acme/acme-1', shape) }),
  },
  {
    name: 'responses',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('acme/acme-r', shape) }),
  },
  {
    name: 'messages',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('acme/acme-m', shape) }),
  },
  {
    name: 'generate-content',
    manyAnswers: true,
    request: (shape) => ({
      path: `/v1beta/models/acme/acme-g:${shape.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      body: {
        contents: [{ role: 'user', parts: [{ text: shape.text }] }],
        generationConfig: {
          ...(shape.cap === undefined ? {} : { maxOutputTokens: shape.cap }),
          ...(shape.answers > 1 ? { candidateCount: shape.answers } : {}),
        },
        ...(shape.withTool ? { tools: [{ functionDeclarations: [{ name: 'get_weather', parameters }] }] } : {}),
      },
    }),
  },
  {
    name: 'chat → messages (K2.7)',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/chat/completions', body: chatBody('alpha-k2.7-code', shape) }),
  },
  {
    name: 'responses → chat (a model a chat connection declares)',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('acme/acme-1', shape) }),
  },
  {
    name: 'messages → chat',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('acme/acme-1', shape) }),
  },
  {
    name: 'messages → chat (K3)',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('alpha-k3', shape) }),
  },
  {
    name: 'messages, thinking mode (K2.7)',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('alpha-k2.7-code', shape) }),
  },
  {
    name: 'responses → chat (K3)',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('alpha-k3', shape) }),
  },
  {
    name: 'responses → chat → messages (K2.7)',
    manyAnswers: false,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('alpha-k2.7-code', shape, false) }),
  },
];

const requestShape = fc
  .record({
    route: fc.constantFrom(...routes),
    text: promptText,
    stream: fc.boolean(),
    cap: fc.option(fc.integer({ min: 2, max: 6_000 }), { nil: undefined }),
    answers: fc.integer({ min: 1, max: 4 }),
    withTool: fc.boolean(),
    chatCapField: fc.constantFrom('max_tokens' as const, 'max_completion_tokens' as const, 'both' as const),
    policyMaxOutput: fc.option(fc.integer({ min: 2, max: 3_000 }), { nil: undefined }),
  })
  .map(({ route, policyMaxOutput, ...shape }) => ({
    route,
    policyMaxOutput,
    shape: {
      ...shape,
      answers: route.manyAnswers ? shape.answers : 1,
      cap: shape.cap === undefined || policyMaxOutput === undefined ? shape.cap : Math.min(shape.cap, policyMaxOutput),
    },
  }));

describe('the reservation bounds what the upstream may produce', () => {
  it('for every accepted request shape, against an upstream that produces the most it is allowed', async () => {
    fixture.upstream.setScenario(() => ({ type: 'answer', usage: 'most-allowed' }));
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(requestShape, async ({ route, policyMaxOutput, shape }) => {
        const { key } = await gateway.admin.createMemberWithKey({
          dailyTokens: 100_000_000,
          ...(policyMaxOutput === undefined ? {} : { maxOutput: policyMaxOutput }),
        });
        const { path, body } = route.request(shape);
        const response = await postJson(gateway, key, path, body);
        const text = await response.text();
        expect(response.status, `${route.name}: ${text}`).toBe(200);
        const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
        expect(record.source, route.name).toBe('measured');
        const inputEstimate = estimateInputTokens(body);
        const outputReserved = record.reserved - inputEstimate;
        // The output is bounded exactly; the only excess allowed is the input estimate's own error.
        expect(record.outputTokens!, route.name).toBeLessThanOrEqual(outputReserved);
        expect(record.charge - record.reserved).toBeLessThanOrEqual(Math.max(0, record.inputTokens! - inputEstimate));
        // And the bound is tight: the upstream was let produce exactly what was reserved for output.
        expect(record.outputTokens).toBe(outputReserved);
        seen.add(route.name);
      }),
      { numRuns: 200, seed: 20_261_125 },
    );
    expect([...seen].sort()).toEqual(routes.map((route) => route.name).sort());
  });
});
