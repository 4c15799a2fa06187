import { describe, expect, it } from 'vitest';
import { catalogModels } from '../../shared/catalog/catalog-data.ts';
import { assertMediaTaken, listedInputModalities, mediaTakenOn } from '../../shared/catalog/input-modalities.ts';
import { knownModels } from '../../shared/catalog/known-models.ts';
import type { ConnectionItem } from '../../shared/store/control-items.ts';
import { messagesMediaParts } from '../../shared/wires/anthropic-messages/anthropic-messages-media.ts';
import { geminiMediaParts } from '../../shared/wires/gemini/gemini-media.ts';
import {
  inlineMediaOfObject,
  inlineMediaOfString,
  mediaTypeOfDataUrl,
  modalityOfMediaType,
} from '../../shared/wires/input-media.ts';
import { chatMediaParts } from '../../shared/wires/openai-chat/openai-chat-media.ts';
import { responsesMediaParts } from '../../shared/wires/openai-responses/openai-responses-media.ts';
import { expectGatewayError } from '../translation/chat-to-messages/translate-fixture.ts';

describe('media parts of each client wire', () => {
  it('chat: image_url, video_url, input_audio and audio_url, and file by its data`s MIME type', () => {
    const parts = chatMediaParts({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look.' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'video_url', video_url: 'data:video/mp4;base64,AAAA' },
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
            { type: 'audio_url', audio_url: { url: 'https://example.com/a.wav' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
            { type: 'file', file: { file_data: 'data:video/webm;base64,GkXf' } },
            { type: 'file', file: { file_id: 'file-1' } },
            { type: 'something_new' },
          ],
        },
      ],
    });
    expect(parts).toEqual([
      { modality: 'image', where: 'messages.1.content.1' },
      { modality: 'video', where: 'messages.1.content.2' },
      { modality: 'audio', where: 'messages.1.content.3' },
      { modality: 'audio', where: 'messages.1.content.4' },
      { modality: 'file', where: 'messages.1.content.5' },
      { modality: 'video', where: 'messages.1.content.6' },
      { modality: 'file', where: 'messages.1.content.7' },
    ]);
  });

  it('Responses: message content and tool outputs; a file is of its data`s kind', () => {
    const parts = responsesMediaParts({
      model: 'm',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look.' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBO' },
            { type: 'input_file', file_data: 'data:video/mp4;base64,AAAA', filename: 'clip.mp4' },
            { type: 'input_file', file_id: 'file-1' },
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'mp3' } },
          ],
        },
        { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'https://x/a.png' }] },
      ],
    });
    expect(parts).toEqual([
      { modality: 'image', where: 'input.0.content.1' },
      { modality: 'video', where: 'input.0.content.2' },
      { modality: 'file', where: 'input.0.content.3' },
      { modality: 'audio', where: 'input.0.content.4' },
      { modality: 'image', where: 'input.1.output.0' },
    ]);
    expect(responsesMediaParts({ model: 'm', input: 'just text' })).toEqual([]);
  });

  it('messages: image and document blocks, also inside tool results', () => {
    const parts = messagesMediaParts({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hi' } },
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [{ type: 'image', source: { type: 'url', url: 'https://x/a.png' } }],
            },
          ],
        },
        { role: 'assistant', content: 'Seen.' },
      ],
    });
    expect(parts).toEqual([
      { modality: 'image', where: 'messages.0.content.0' },
      { modality: 'file', where: 'messages.0.content.1' },
      { modality: 'image', where: 'messages.0.content.2.content.0' },
    ]);
  });

  it('generate-content: inline and file data by MIME type, in either spelling, and in function responses', () => {
    const parts = geminiMediaParts({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look.' },
            { inlineData: { mimeType: 'image/jpeg', data: '/9j/' } },
            { file_data: { mime_type: 'video/mp4', file_uri: 'gs://b/clip.mp4' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'https://x/a.pdf' } },
            {
              functionResponse: {
                name: 'f',
                response: {},
                parts: [{ inlineData: { mimeType: 'audio/wav', data: 'UklG' } }],
              },
            },
          ],
        },
      ],
      systemInstruction: { parts: [{ inline_data: { mime_type: 'image/png', data: 'iVBO' } }] },
    });
    expect(parts).toEqual([
      { modality: 'image', where: 'contents.0.parts.1' },
      { modality: 'video', where: 'contents.0.parts.2' },
      { modality: 'file', where: 'contents.0.parts.3' },
      { modality: 'audio', where: 'contents.0.parts.4.functionResponse.parts.0' },
      { modality: 'image', where: 'systemInstruction.parts.0' },
    ]);
  });
});

describe('inline media in a body', () => {
  it('reads MIME types and payloads from data: URLs and from data beside a MIME type key', () => {
    expect(mediaTypeOfDataUrl('data:video/mp4;base64,AAAA')).toBe('video/mp4');
    expect(mediaTypeOfDataUrl('https://x/a.png')).toBeUndefined();
    expect(modalityOfMediaType('IMAGE/PNG')).toBe('image');
    expect(modalityOfMediaType('application/pdf')).toBe('file');
    expect(inlineMediaOfString('data:image/png;base64,iVBO')).toEqual({ mediaType: 'image/png', payload: 'iVBO' });
    expect(inlineMediaOfString('data:text/plain,hello')).toBeUndefined();
    expect(inlineMediaOfObject({ type: 'base64', media_type: 'image/png', data: 'iVBO' })).toEqual({
      mediaType: 'image/png',
      payload: 'iVBO',
    });
    expect(inlineMediaOfObject({ mimeType: 'video/mp4', data: 'AAAA' })?.mediaType).toBe('video/mp4');
    expect(inlineMediaOfObject({ data: 'no type' })).toBeUndefined();
  });
});

describe('what a model takes', () => {
  const connection = (fields: Partial<ConnectionItem>): ConnectionItem => ({
    id: 'con_1',
    provider: 'alpha',
    wire: 'openai-chat',
    baseUrl: 'https://example.com/v1',
    models: [],
    modelLimits: [],
    upstream: 'alpha',
    privateNetwork: false,
    enabled: true,
    createdAt: '2026-01-01T00:00:00Z',
    secretName: 's',
    version: 1,
    ...fields,
  });
  const chatRoute = connection({});
  const messagesRoute = connection({ wire: 'anthropic-messages' });
  const declaring = connection({
    provider: 'acme',
    models: ['acme-1', 'acme-2'],
    modelLimits: [{ id: 'acme-2', contextWindow: null, maxOutput: null, inputModalities: ['text', 'video'] }],
  });
  const models = knownModels([chatRoute, messagesRoute, declaring]);
  const model = (id: string) => {
    const found = models.find((known) => known.publicId === id);
    if (!found) throw new Error(`no model ${id}`);
    return found;
  };

  it('is the catalog`s list as far as the connection`s wire carries it, or the declaration, or anything', () => {
    expect([...(mediaTakenOn(model('alpha/alpha-k3'), chatRoute) ?? [])]).toEqual(['image', 'video']);
    expect([...(mediaTakenOn(model('alpha/alpha-k3-256k'), chatRoute) ?? [])]).toEqual(['image']);
    expect([...(mediaTakenOn(model('alpha/alpha-k2.7-code'), messagesRoute) ?? [])]).toEqual(['image']);
    expect([...(mediaTakenOn(model('beta/beta-4-31b'), chatRoute) ?? [])]).toEqual([]);
    expect(mediaTakenOn(model('acme/acme-1'), declaring)).toBeUndefined();
    expect([...(mediaTakenOn(model('acme/acme-2'), declaring) ?? [])]).toEqual(['video']);
    expect(listedInputModalities(model('alpha/alpha-k2.7-code'), [messagesRoute])).toEqual(['text', 'image']);
    expect(listedInputModalities(model('acme/acme-1'), [declaring])).toBeUndefined();
  });

  it('refuses the first part the model does not take, naming where it is and why', () => {
    const video = [{ modality: 'video' as const, where: 'messages.0.content.1' }];
    const error = expectGatewayError(
      () => assertMediaTaken(model('alpha/alpha-k2.7-code'), messagesRoute, video),
      400,
      'unsupported_modality',
    );
    expect(error.message).toBe(
      'messages.0.content.1 is a video, which alpha/alpha-k2.7-code does not take: it is listed with video input, but its upstream speaks the anthropic-messages format, which has no video part; it takes text and image input here.',
    );
    expect(
      expectGatewayError(
        () => assertMediaTaken(model('alpha/alpha-k3'), chatRoute, [{ modality: 'audio', where: 'x' }]),
        400,
        'unsupported_modality',
      ).message,
    ).toBe('x is audio, which alpha/alpha-k3 does not take: it takes text, image and video input.');
    expect(() => assertMediaTaken(model('alpha/alpha-k3'), chatRoute, video)).not.toThrow();
    expect(() => assertMediaTaken(model('acme/acme-1'), declaring, video)).not.toThrow();
  });

  it('lists catalog entries with the kinds spec §2.2 states', () => {
    const listed = Object.fromEntries(catalogModels.map((entry) => [entry.publicId, entry.inputModalities]));
    expect(listed).toEqual({
      'alpha/alpha-k3': ['text', 'image', 'video'],
      'alpha/alpha-k3-256k': ['text', 'image'],
      'alpha/alpha-k2.7-code': ['text', 'image', 'video'],
      'alpha/alpha-k2.7-code-highspeed': ['text', 'image', 'video'],
      'beta/beta-4-31b': ['text'],
      'gamma/gamma': ['text'],
    });
  });
});
