import { describe, expect, it } from 'vitest';
import {
  estimateInput,
  estimateTextTokens,
  reservedInputTokens,
  surelyHeldInputTokens,
} from '../../shared/accounting/estimate-input-tokens.ts';
import { imageTokens, smallestImageTokens } from '../../shared/accounting/estimate-media-tokens.ts';
import { pngHeader } from '../support/image-headers.ts';

/** Image headers, each as much of the file as a reader of its size needs. */
const png = pngHeader;

function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.alloc(19);
  sof.writeUInt16BE(0xffc0, 0);
  sof.writeUInt16BE(17, 2);
  sof.writeUInt8(8, 4);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

function gif(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  return header;
}

const base64 = (bytes: Buffer) => bytes.toString('base64');

describe('an inline image', () => {
  it('counts one token per 14×14 patch of the size its header states, at least 258, in every format', () => {
    expect(imageTokens(base64(png(1920, 1080)))).toBe(Math.ceil(1920 / 14) * Math.ceil(1080 / 14));
    expect(imageTokens(base64(jpeg(4000, 3000)))).toBe(Math.ceil(4000 / 14) * Math.ceil(3000 / 14));
    expect(imageTokens(base64(gif(300, 200)))).toBe(22 * 15);
    expect(imageTokens(base64(png(2, 3)))).toBe(smallestImageTokens);
    expect(imageTokens(base64(Buffer.from('not an image at all')))).toBeUndefined();
  });

  it('is priced so in every wire`s form, and as text where its header cannot be read', () => {
    const data = base64(png(700, 700));
    const pixels = 50 * 50;
    const forms = [
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
      { type: 'input_image', image_url: `data:image/png;base64,${data}` },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
      { inlineData: { mimeType: 'image/png', data } },
    ];
    for (const form of forms) expect(estimateInput({ messages: [form] }).mediaTokens).toBe(pixels);
    const garbled = 'Zm9vYmFyYmF6'.repeat(50);
    expect(estimateInput({ inlineData: { mimeType: 'image/png', data: garbled } }).mediaTokens).toBe(
      estimateTextTokens(garbled),
    );
  });

  it('makes a large screenshot far cheaper than its bytes as text, which it once was', () => {
    const screenshot = Buffer.concat([png(2880, 1800), Buffer.alloc(400_000, 7)]).toString('base64');
    const estimate = estimateInput({
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${screenshot}` } }] },
      ],
    });
    expect(estimate.mediaTokens).toBe(206 * 129);
    expect(estimate.mediaTokens).toBeLessThan(estimateTextTokens(screenshot) / 10);
  });
});

describe('a video, audio and files', () => {
  it('are priced as their text; a video marks the request', () => {
    const bytes = base64(Buffer.from('....ftypisom video bytes of a clip'));
    const video = estimateInput({ parts: [{ inlineData: { mimeType: 'video/mp4', data: bytes } }] });
    expect(video).toMatchObject({ mediaTokens: estimateTextTokens(bytes), holdsVideo: true });
    const audio = estimateInput({ input_audio: `data:audio/wav;base64,${bytes}` });
    expect(audio).toMatchObject({ mediaTokens: estimateTextTokens(bytes), holdsVideo: false });
    const document = estimateInput({ source: { type: 'text', media_type: 'text/plain', data: 'A short note.' } });
    expect(document.mediaTokens).toBe(estimateTextTokens('A short note.'));
  });
});

describe('what is reserved and what is surely there', () => {
  const text = 'Describe the clip in detail. '.repeat(40);
  const withVideo = {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text },
          { type: 'video_url', video_url: { url: 'data:video/mp4;base64,AAAAGGZ0eXA=' } },
        ],
      },
    ],
  };
  const textOnly = { messages: [{ role: 'user', content: text }] };

  it('reserves the context window for a request with a video, and never more input than the window', () => {
    expect(reservedInputTokens(estimateInput(withVideo), 1_048_576)).toBe(1_048_576);
    expect(reservedInputTokens(estimateInput(withVideo), null)).toBe(estimateInput(withVideo).tokens);
    expect(reservedInputTokens(estimateInput(textOnly), 1_048_576)).toBe(estimateInput(textOnly).tokens);
    expect(reservedInputTokens(estimateInput(textOnly), 50)).toBe(50);
  });

  it('counts media nothing towards the input a request surely holds', () => {
    const estimate = estimateInput(withVideo);
    expect(estimate.mediaTokens).toBeGreaterThan(0);
    expect(surelyHeldInputTokens(estimate)).toBe(
      surelyHeldInputTokens({ ...estimate, tokens: estimate.tokens - estimate.mediaTokens, mediaTokens: 0 }),
    );
    const image = estimateInput({
      content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png(8000, 8000))}` } }],
    });
    expect(image.mediaTokens).toBe(572 * 572);
    expect(surelyHeldInputTokens(image)).toBeLessThan(10);
  });
});
