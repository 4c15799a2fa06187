import type { StreamFraming } from '../client-wire-format.ts';
import { geminiErrorBody } from './gemini-error.ts';

/**
 * `:streamGenerateContent` without `alt=sse`: the vendor streams ONE JSON array, each element a whole response
 * chunk, written as it is produced — `[{…}` then `,\r\n{…}` per chunk, then `]` — so a client can parse the body as
 * one array or element by element. Errors come the same way: a one-element array before the stream starts, and an
 * `{"error":…}` element that closes the array when it fails midway.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export const geminiJsonArrayFraming: StreamFraming = {
  contentType: 'application/json; charset=UTF-8',
  open() {
    let opened = false;
    const element = (json: string) => {
      const lead = opened ? ',\r\n' : '[';
      opened = true;
      return `${lead}${json}`;
    };
    return {
      event: element,
      end: () => (opened ? ']' : '[]'),
      failure: (error) => `${element(JSON.stringify(geminiErrorBody(error)))}]`,
    };
  },
  errorBody: (body) => `[${body}]`,
};
