import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateInput, reservedInputTokens } from '../../shared/accounting/estimate-input-tokens.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { googleApiErrorOf } from '../support/google-refusal.ts';
import { refusal } from '../support/openai-refusal.ts';
import { anthropicClient, googleClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { settledRecord } from '../support/usage-records.ts';

/**
 * Multimodal input follows the catalog (spec §2.2) on every client wire and route, with the official SDKs: images
 * and video reach the upstream in its own shape where the model takes them, and anything else is refused with 400
 * `unsupported_modality` in the client's envelope before anything is reserved or sent. K3 takes image and video,
 * K3 256K images, K2.7 images (its catalog entry lists video, but its messages-format route has no video block),
 * Beta and Gamma text alone; a model a connection declares takes what the client sends unless it states its
 * modalities.
 */
const fixture = useGatewayFixture({
  connections: [
    ...alphaRoutes,
    { provider: 'beta', wire: 'openai-chat', upstream: 'beta', path: '/beta-route/v1' },
    { provider: 'gamma', wire: 'openai-chat', upstream: 'gamma', path: '/gamma-route/v1' },
    ...acmeOnEveryWire,
    { provider: 'vision', wire: 'openai-chat', models: [{ id: 'eyes-1', inputModalities: ['image'] }] },
    {
      provider: 'vision',
      wire: 'gemini',
      models: [{ id: 'eyes-g', inputModalities: ['image'] }],
      path: '/vision-gemini/v1beta',
    },
  ],
  member: { dailyTokens: 50_000_000 },
});
let upstream: FakeUpstream;
let gateway: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(() => {
  ({ upstream, gateway } = fixture);
  openai = openaiClient(gateway, fixture.member.key);
  anthropic = anthropicClient(gateway, fixture.member.key);
});

const png = readFileSync(new URL('../fixtures/media/red-2x3.png', import.meta.url)).toString('base64');
const imageUrl = `data:image/png;base64,${png}`;
/** The opening of an MP4 file: what travels is bytes, which no one here decodes. */
const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom\0\0\x02\0isomiso2')]).toString('base64');
const videoUrl = `data:video/mp4;base64,${mp4}`;

type ChatPart = OpenAI.ChatCompletionContentPart | { type: 'video_url'; video_url: { url: string } };
const chatWith = (model: string, ...parts: ChatPart[]) =>
  openai.chat.completions.create({
    model,
    max_tokens: 200,
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'Describe it.' }, ...parts] as OpenAI.ChatCompletionContentPart[],
      },
    ],
  });
const image: ChatPart = { type: 'image_url', image_url: { url: imageUrl } };
const video: ChatPart = { type: 'video_url', video_url: { url: videoUrl } };

/** The content of the last user message the upstream received. */
function sentUserContent(index = 0): unknown {
  const body = upstream.requests[index]?.json as { messages?: { role: string; content: unknown }[]; input?: unknown };
  return body.messages?.findLast((message) => message.role === 'user')?.content;
}

describe('chat completions', () => {
  it('passes images and video through to K3 as they were sent', async () => {
    await chatWith('alpha-k3', image, video);
    expect(sentUserContent()).toEqual([{ type: 'text', text: 'Describe it.' }, image, video]);
  });

  it('refuses a video to K3 256K and an image to Beta and Gamma, naming the part, before anything is reserved', async () => {
    const cases: [string, ChatPart, RegExp][] = [
      [
        'alpha-k3-256k',
        video,
        /messages\.0\.content\.1 is a video, which alpha\/alpha-k3-256k does not take: it takes text and image input/,
      ],
      ['beta-4-31b', image, /is an image, which beta\/beta-4-31b does not take: it takes text input/],
      ['gamma', image, /which gamma\/gamma does not take/],
    ];
    for (const [model, part, message] of cases) {
      const refused = await chatWith(model, part).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect(refused).toMatchObject({ status: 400, code: 'unsupported_modality' });
      expect((refused as Error).message).toMatch(message);
    }
    expect(upstream.requests).toHaveLength(0);
    await chatWith('alpha-k3-256k', image);
    expect(upstream.requests).toHaveLength(1);
  });

  it('translates an image to K2.7`s messages route as a base64 image block, and refuses video there with the reason', async () => {
    await chatWith('alpha-k2.7-code', image);
    expect(sentUserContent()).toEqual([
      { type: 'text', text: 'Describe it.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    ]);
    const refused = await chatWith('alpha-k2.7-code', video).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: 'unsupported_modality' });
    expect((refused as Error).message).toContain(
      'it is listed with video input, but its upstream speaks the anthropic-messages format, which has no video part',
    );
  });

  it('refuses audio and files to the catalog models, which list neither', async () => {
    const audio = { type: 'input_audio', input_audio: { data: mp4, format: 'wav' } } as ChatPart;
    const file = {
      type: 'file',
      file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
    } as ChatPart;
    expect(await refusal(chatWith('alpha-k3', audio))).toEqual({ status: 400, code: 'unsupported_modality' });
    expect(await refusal(chatWith('alpha-k3', file))).toEqual({ status: 400, code: 'unsupported_modality' });
  });

  it('passes every part to a model a connection declares without modalities, and holds one that states them to it', async () => {
    await chatWith('acme/acme-1', image, video);
    expect(sentUserContent()).toEqual([{ type: 'text', text: 'Describe it.' }, image, video]);
    await chatWith('vision/eyes-1', image);
    expect(await refusal(chatWith('vision/eyes-1', video))).toEqual({ status: 400, code: 'unsupported_modality' });
  });
});

describe('responses', () => {
  const ask = (model: string, part: OpenAI.Responses.ResponseInputContent) =>
    openai.responses.create({
      model,
      max_output_tokens: 200,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Describe it.' }, part] }],
    });
  const inputImage: OpenAI.Responses.ResponseInputImage = { type: 'input_image', image_url: imageUrl, detail: 'auto' };
  const inputVideo: OpenAI.Responses.ResponseInputFile = {
    type: 'input_file',
    file_data: videoUrl,
    filename: 'clip.mp4',
  };

  it('carries an image to K2.7 through chat to its messages route', async () => {
    const answer = await ask('alpha-k2.7-code', inputImage);
    expect(answer.status).toBe('completed');
    expect(sentUserContent()).toEqual([
      { type: 'text', text: 'Describe it.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    ]);
  });

  it('carries a video file to K3 as a chat video_url part, and an image with its detail', async () => {
    await ask('alpha-k3', inputVideo);
    expect(sentUserContent()).toEqual([
      { type: 'text', text: 'Describe it.' },
      { type: 'video_url', video_url: { url: videoUrl } },
    ]);
    await ask('alpha-k3', inputImage);
    expect(sentUserContent(1)).toEqual([
      { type: 'text', text: 'Describe it.' },
      { type: 'image_url', image_url: { url: imageUrl, detail: 'auto' } },
    ]);
  });

  it('refuses a video to K3 256K and K2.7, an image to Beta, and a PDF to K3', async () => {
    const pdf: OpenAI.Responses.ResponseInputFile = {
      type: 'input_file',
      file_data: 'data:application/pdf;base64,JVBERi0=',
      filename: 'a.pdf',
    };
    for (const [model, part] of [
      ['alpha-k3-256k', inputVideo],
      ['alpha-k2.7-code', inputVideo],
      ['beta-4-31b', inputImage],
      ['alpha-k3', pdf],
    ] as const) {
      expect(await refusal(ask(model, part))).toEqual({ status: 400, code: 'unsupported_modality' });
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('passes media through to a native Responses connection unchanged', async () => {
    await ask('acme/acme-r', inputImage);
    expect(upstream.requests[0]?.json).toMatchObject({
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Describe it.' }, inputImage] }],
    });
  });
});

describe('messages', () => {
  const imageBlock: Anthropic.ImageBlockParam = {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: png },
  };
  const ask = (model: string, block: Anthropic.ContentBlockParam) =>
    anthropic.messages.create({
      model,
      max_tokens: 2_000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Describe it.' }, block] }],
    });

  it('passes an image block through to K2.7 as it came, and carries one to K3 as a data: URL', async () => {
    await ask('alpha-k2.7-code', imageBlock);
    expect(sentUserContent()).toEqual([{ type: 'text', text: 'Describe it.' }, imageBlock]);
    await ask('alpha-k3', imageBlock);
    expect(sentUserContent(1)).toEqual([
      { type: 'text', text: 'Describe it.' },
      { type: 'image_url', image_url: { url: imageUrl } },
    ]);
  });

  it('refuses a document to K2.7 and an image to Beta in the messages envelope', async () => {
    const document: Anthropic.DocumentBlockParam = {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
    };
    for (const [model, block] of [
      ['alpha-k2.7-code', document],
      ['beta-4-31b', imageBlock],
    ] as const) {
      const refused = await ask(model, block).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
      expect(refused).toMatchObject({ status: 400, error: { type: 'error', error: { code: 'unsupported_modality' } } });
    }
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('generate-content', () => {
  const ai = () => googleClient(gateway, fixture.member.key);
  const contents = (mimeType: string, data: string) => [
    { role: 'user', parts: [{ text: 'Describe it.' }, { inlineData: { mimeType, data } }] },
  ];

  it('passes inline data through by its MIME type, and refuses what a declared model does not take', async () => {
    await ai().models.generateContent({ model: 'acme/acme-g', contents: contents('video/mp4', mp4) });
    expect(upstream.requests[0]?.json).toMatchObject({ contents: contents('video/mp4', mp4) });
    await ai().models.generateContent({ model: 'vision/eyes-g', contents: contents('image/png', png) });

    const refused = await googleApiErrorOf(
      ai().models.generateContent({ model: 'vision/eyes-g', contents: contents('video/mp4', mp4) }),
    );
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.message)).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', reason: 'unsupported_modality' },
    });
    expect(refused.message).toContain('contents.0.parts.1 is a video, which vision/eyes-g does not take');
  });
});

describe('model lists', () => {
  it('say which input modalities each model takes where the catalog or its connection states them', async () => {
    const listed = new Map<string, unknown>();
    for await (const model of openai.models.list()) {
      listed.set(model.id, (model as { input_modalities?: unknown }).input_modalities);
    }
    expect(Object.fromEntries(listed)).toMatchObject({
      'alpha/alpha-k3': ['text', 'image', 'video'],
      'alpha/alpha-k3-256k': ['text', 'image'],
      'alpha/alpha-k2.7-code': ['text', 'image'],
      'beta/beta-4-31b': ['text'],
      'gamma/gamma': ['text'],
      'vision/eyes-1': ['text', 'image'],
      'acme/acme-1': undefined,
    });
  });
});

describe('under a finite allowance', () => {
  it('refuses remote media, prices an inline image by its pixels, and reserves K3`s window for a video', async () => {
    const { key } = await gateway.admin.createMemberWithKey({ dailyTokens: 2_000_000 });
    const client = openaiClient(gateway, key);
    const remote = client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
    });
    expect(await refusal(remote)).toEqual({ status: 400, code: 'remote_media_refused' });

    const body = {
      model: 'alpha-k3',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Describe it.' }, image] }],
    };
    const { response } = await client.chat.completions
      .create(body as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id') ?? '');
    const estimate = estimateInput(body);
    expect(estimate.mediaTokens).toBe(258);
    expect(record.reserved).toBe(estimate.tokens + 100);

    const withVideo = { ...body, messages: [{ role: 'user' as const, content: [video] }] };
    const videoAnswer = await client.chat.completions
      .create(withVideo as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    const videoRecord = await settledRecord(
      gateway.host.services,
      videoAnswer.response.headers.get('x-request-id') ?? '',
    );
    expect(videoRecord.reserved).toBe(reservedInputTokens(estimateInput(withVideo), 1_048_576) + 100);
    expect(videoRecord.reserved).toBe(1_048_576 + 100);

    // Under an allowance smaller than the window, a video to K3 cannot be reserved.
    const small = await gateway.admin.createMemberWithKey({ dailyTokens: 500_000 });
    const smallClient = openaiClient(gateway, small.key);
    expect(
      await refusal(
        smallClient.chat.completions.create(withVideo as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming),
      ),
    ).toEqual({ status: 429, code: 'token_reservation_limit' });
  });
});
