import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateInput, reservedInputTokens } from '../../shared/accounting/estimate-input-tokens.ts';
import { encodeReasoningState } from '../../shared/translation/responses-to-chat/reasoning-state.ts';
import { thinkingSignature } from '../support/fake-upstream/signed-thinking.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { pngHeader } from '../support/image-headers.ts';
import { postJson, type TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * The reservation is an upper bound of what the upstream may produce. Generated requests of every accepted shape
 * — each client wire, passed through and translated (chat → messages on K2.7; messages → chat on a declared chat
 * model and on K3; messages on K2.7 under thinking mode's rules; Responses → chat on any chat connection and on K3,
 * and on to messages on K2.7), streamed or not, with or without a cap of their own, with `n` / `candidateCount`, with
 * function tools, under a member's output policy — go to a fake upstream that always bills the most its request
 * allows (`usage: 'most-allowed'`: every answer as long as the cap it received, 50,000 tokens each without one, and
 * its text counted with o200k_base as input, its inline images as a vision model counts them and other media as
 * their base64 text). Measured usage never exceeds the reservation except by the input estimate's error: the output
 * alone always fits in what the reservation holds beyond the input estimate, and where the request holds an image or
 * a video the input fits in what is reserved for it too (an image is priced by its pixels, a video by the model's
 * context window where one is stated). K2.7's Responses route runs a tool loop whose reasoning item carries the
 * upstream's signed thinking back, as the strict upstream requires.
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

/** Inline media of a request: an image (a PNG whose header states its size) or a few bytes of video. */
type Media =
  | { kind: 'none' }
  | { kind: 'image'; mediaType: 'image/png'; base64: string }
  | { kind: 'video'; mediaType: 'video/mp4'; base64: string };

const dataUrl = (media: Exclude<Media, { kind: 'none' }>) => `data:${media.mediaType};base64,${media.base64}`;

interface Shape {
  text: string;
  media: Media;
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
  /** The media its model takes on this route (an image everywhere; a video where a chat upstream takes one). */
  takesVideo: boolean;
  /** The model's context window, which bounds the input reserved. */
  contextWindow: number | null;
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
      { role: 'user', content: chatUserContent(shape) },
    ],
    stream: shape.stream,
    ...caps,
    ...(shape.answers > 1 ? { n: shape.answers } : {}),
    ...(shape.withTool ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters } }] } : {}),
  };
}

function chatUserContent({ text, media }: Shape): unknown {
  switch (media.kind) {
    case 'none':
      return text;
    case 'image':
      return [
        { type: 'text', text },
        { type: 'image_url', image_url: { url: dataUrl(media) } },
      ];
    case 'video':
      return [
        { type: 'text', text },
        { type: 'video_url', video_url: { url: dataUrl(media) } },
      ];
  }
}

function messagesBody(model: string, shape: Shape): Record<string, unknown> {
  const { text, media } = shape;
  if (media.kind === 'video') throw new Error('the messages wire has no video block');
  const content =
    media.kind === 'image'
      ? [
          { type: 'text', text },
          { type: 'image', source: { type: 'base64', media_type: media.mediaType, data: media.base64 } },
        ]
      : text;
  return {
    model,
    system: 'Answer at length.',
    messages: [{ role: 'user', content }],
    stream: shape.stream,
    ...(shape.cap === undefined ? {} : { max_tokens: shape.cap }),
    ...(shape.withTool ? { tools: [{ name: 'get_weather', input_schema: parameters }] } : {}),
  };
}

/**
 * With a tool, the input is a list of items: the question, the model's call and its output, as agents send them.
 * Where the upstream checks signed thinking (`signedThinking`: K2.7 in thinking mode refuses a tool loop whose
 * thinking was not sent back), the call follows the reasoning item its answer carried, with the upstream's signed
 * block in its `encrypted_content`, as Codex CLI sends it back.
 */
function responsesBody(model: string, shape: Shape, signedThinking = false): Record<string, unknown> {
  const call = { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' };
  const reasoning = 'Look up the weather.';
  const reasoningItem = {
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: reasoning }],
    encrypted_content: encodeReasoningState({
      text: reasoning,
      thinkingBlocks: [{ type: 'thinking', thinking: reasoning, signature: thinkingSignature(reasoning) }],
    }),
  };
  const { media } = shape;
  const question =
    media.kind === 'none'
      ? { role: 'user', content: shape.text }
      : {
          role: 'user',
          content: [
            { type: 'input_text', text: shape.text },
            media.kind === 'image'
              ? { type: 'input_image', image_url: dataUrl(media) }
              : { type: 'input_file', file_data: dataUrl(media), filename: 'clip.mp4' },
          ],
        };
  return {
    model,
    instructions: 'Answer at length.',
    input: shape.withTool
      ? [
          question,
          ...(signedThinking ? [reasoningItem] : []),
          call,
          { type: 'function_call_output', call_id: 'call_1', output: 'cold' },
        ]
      : media.kind === 'none'
        ? shape.text
        : [question],
    stream: shape.stream,
    ...(shape.cap === undefined ? {} : { max_output_tokens: shape.cap }),
    ...(shape.withTool ? { tools: [{ type: 'function', name: 'get_weather', parameters }] } : {}),
  };
}

const k3Window = 1_048_576;
const k27Window = 262_144;

function generateContentBody(shape: Shape): Record<string, unknown> {
  const { media } = shape;
  return {
    contents: [
      {
        role: 'user',
        parts: [
          { text: shape.text },
          ...(media.kind === 'none' ? [] : [{ inlineData: { mimeType: media.mediaType, data: media.base64 } }]),
        ],
      },
    ],
    generationConfig: {
      ...(shape.cap === undefined ? {} : { maxOutputTokens: shape.cap }),
      ...(shape.answers > 1 ? { candidateCount: shape.answers } : {}),
    },
    ...(shape.withTool ? { tools: [{ functionDeclarations: [{ name: 'get_weather', parameters }] }] } : {}),
  };
}

const routes: Route[] = [
  {
    name: 'chat',
    manyAnswers: true,
    takesVideo: true,
    contextWindow: null,
    request: (shape) => ({ path: '/v1/chat/completions', body: chatBody('acme/acme-1', shape) }),
  },
  {
    name: 'chat (K3)',
    manyAnswers: true,
    takesVideo: true,
    contextWindow: k3Window,
    request: (shape) => ({ path: '/v1/chat/completions', body: chatBody('alpha-k3', shape) }),
  },
  {
    name: 'responses',
    manyAnswers: false,
    takesVideo: false,
    contextWindow: null,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('acme/acme-r', shape) }),
  },
  {
    name: 'messages',
    manyAnswers: false,
    takesVideo: false,
    contextWindow: null,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('acme/acme-m', shape) }),
  },
  {
    name: 'generate-content',
    manyAnswers: true,
    takesVideo: true,
    contextWindow: null,
    request: (shape) => ({
      path: `/v1beta/models/acme/acme-g:${shape.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      body: generateContentBody(shape),
    }),
  },
  {
    name: 'chat → messages (K2.7)',
    manyAnswers: false,
    takesVideo: false,
    contextWindow: k27Window,
    request: (shape) => ({ path: '/v1/chat/completions', body: chatBody('alpha-k2.7-code', shape) }),
  },
  {
    name: 'responses → chat (a model a chat connection declares)',
    manyAnswers: false,
    takesVideo: true,
    contextWindow: null,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('acme/acme-1', shape) }),
  },
  {
    name: 'messages → chat',
    manyAnswers: false,
    takesVideo: false,
    contextWindow: null,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('acme/acme-1', shape) }),
  },
  {
    name: 'messages → chat (K3)',
    manyAnswers: false,
    takesVideo: false,
    contextWindow: k3Window,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('alpha-k3', shape) }),
  },
  {
    name: 'messages, thinking mode (K2.7)',
    manyAnswers: false,
    takesVideo: false,
    contextWindow: k27Window,
    request: (shape) => ({ path: '/v1/messages', body: messagesBody('alpha-k2.7-code', shape) }),
  },
  {
    name: 'responses → chat (K3)',
    manyAnswers: false,
    takesVideo: true,
    contextWindow: k3Window,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('alpha-k3', shape) }),
  },
  {
    name: 'responses → chat → messages (K2.7)',
    manyAnswers: false,
    takesVideo: false,
    contextWindow: k27Window,
    request: (shape) => ({ path: '/v1/responses', body: responsesBody('alpha-k2.7-code', shape, true) }),
  },
];

/** An image of 1 to 5,000 pixels a side, or up to 3 KB of video bytes. */
const mediaArbitrary: fc.Arbitrary<Media> = fc.oneof(
  fc.constant<Media>({ kind: 'none' }),
  fc.record({ width: fc.integer({ min: 1, max: 5_000 }), height: fc.integer({ min: 1, max: 5_000 }) }).map(
    ({ width, height }): Media => ({
      kind: 'image',
      mediaType: 'image/png',
      base64: pngHeader(width, height).toString('base64'),
    }),
  ),
  fc
    .uint8Array({ minLength: 16, maxLength: 3_000 })
    .map((bytes): Media => ({ kind: 'video', mediaType: 'video/mp4', base64: Buffer.from(bytes).toString('base64') })),
);

const requestShape = fc
  .record({
    route: fc.constantFrom(...routes),
    text: promptText,
    media: mediaArbitrary,
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
      // A video only where the route's model takes one (elsewhere it is refused: test/e2e/multimodal-input.test.ts).
      media: shape.media.kind === 'video' && !route.takesVideo ? ({ kind: 'none' } as const) : shape.media,
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
        const inputReserved = reservedInputTokens(estimateInput(body), route.contextWindow);
        const outputReserved = record.reserved - inputReserved;
        // The output is bounded exactly; the only excess allowed is the input estimate's own error.
        expect(record.outputTokens!, route.name).toBeLessThanOrEqual(outputReserved);
        expect(record.charge - record.reserved).toBeLessThanOrEqual(Math.max(0, record.inputTokens! - inputReserved));
        // And the bound is tight: the upstream was let produce exactly what was reserved for output.
        expect(record.outputTokens).toBe(outputReserved);
        // Media are priced as an upper bound of what a vision model bills for them.
        if (shape.media.kind !== 'none') expect(record.inputTokens!, route.name).toBeLessThanOrEqual(inputReserved);
        seen.add(`${route.name}${shape.media.kind === 'none' ? '' : ` with ${shape.media.kind}`}`);
      }),
      { numRuns: 300, seed: 20_261_125 },
    );
    const expected = routes.flatMap((route) => [
      route.name,
      `${route.name} with image`,
      ...(route.takesVideo ? [`${route.name} with video`] : []),
    ]);
    expect([...seen].sort()).toEqual(expected.sort());
  });
});
