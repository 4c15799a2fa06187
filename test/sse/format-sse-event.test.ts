import { describe, expect, it } from 'vitest';
import { formatSseEvent } from '../../shared/sse/format-sse-event.ts';
import { splitSseText } from '../support/sse-fixtures.ts';

describe('formatSseEvent', () => {
  it('writes the name, the data and the blank line that ends the event', () => {
    expect(formatSseEvent({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
    expect(formatSseEvent({ event: 'message_stop', data: '{}' })).toBe('event: message_stop\ndata: {}\n\n');
  });

  it('writes data with line breaks as one data line each, which a reader joins back', () => {
    const text = formatSseEvent({ event: 'note', data: 'one\ntwo\n' });
    expect(text).toBe('event: note\ndata: one\ndata: two\ndata: \n\n');
    expect(splitSseText(text).map((event) => event.message)).toEqual([{ event: 'note', data: 'one\ntwo\n' }]);
  });
});
