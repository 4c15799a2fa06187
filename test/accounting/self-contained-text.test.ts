import { describe, expect, it } from 'vitest';
import { assertSelfContainedText } from '../../shared/accounting/self-contained-text.ts';

const refused = (code: string) => expect.objectContaining({ status: 400, code });

describe('finite allowances accept self-contained text only (spec §8 rule 4)', () => {
  it('accepts text, inline data and tool definitions whatever their parameter names', () => {
    expect(() =>
      assertSelfContainedText({
        model: 'm',
        messages: [
          { role: 'user', content: 'see https://example.com/cat.png in plain text' },
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'f',
              parameters: { type: 'object', properties: { file_id: { type: 'string' }, url: {} } },
            },
          },
        ],
        response_format: { type: 'json_schema', json_schema: { schema: { properties: { image_url: {} } } } },
      }),
    ).not.toThrow();
  });

  it('refuses remote media in every wire shape', () => {
    const bodies = [
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/cat.png' } }] }] },
      { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-123' } }] }] },
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/cat.png' }] }] },
      { input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x/a.pdf' }] }] },
      { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x/c.png' } }] }] },
      { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: 'f' } }] }] },
      { contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'gs://bucket/a.pdf', mimeType: 'x' } }] }] },
    ];
    for (const body of bodies) expect(() => assertSelfContainedText(body)).toThrow(refused('remote_media_refused'));
  });

  it('refuses server-stored conversation references', () => {
    for (const body of [
      { input: 'hi', previous_response_id: 'resp_1' },
      { input: 'hi', conversation: 'conv_1' },
      { contents: [], cachedContent: 'cachedContents/abc' },
    ]) {
      expect(() => assertSelfContainedText(body)).toThrow(refused('stored_reference_refused'));
    }
    expect(() => assertSelfContainedText({ input: 'hi', previous_response_id: null })).not.toThrow();
  });
});
