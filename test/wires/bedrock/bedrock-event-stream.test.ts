import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bedrockEventStreamAsSse } from '../../../shared/wires/bedrock/bedrock-event-stream.ts';
import { eventFrame, exceptionFrame } from '../../support/fake-bedrock.ts';

/** Bedrock's binary event stream as the messages SSE it carries: frames checked by the codec, split anywhere. */
const chunk = (event: unknown) => eventFrame('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') });

async function sseOf(parts: readonly Uint8Array[]): Promise<string> {
  let text = '';
  for await (const piece of bedrockEventStreamAsSse(Readable.from(parts.map((part) => Buffer.from(part))))) {
    text += piece.toString();
  }
  return text;
}

describe('bedrockEventStreamAsSse', () => {
  it('turns each chunk event into its messages event, whatever the byte boundaries', async () => {
    const frames = Buffer.concat([chunk({ type: 'message_start', message: {} }), chunk({ type: 'message_stop' })]);
    // One byte at a time: frames split inside their prelude, headers and body.
    const bytes = [...frames].map((byte) => Uint8Array.of(byte));
    expect(await sseOf(bytes)).toBe(
      'event: message_start\ndata: {"type":"message_start","message":{}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  });

  it('turns an exception frame into the messages error event', async () => {
    expect(await sseOf([exceptionFrame('throttlingException', 'slow down')])).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"ThrottlingException: slow down"}}\n\n',
    );
  });

  it('breaks off on a frame whose CRC does not match, and on a stream that ends inside a frame', async () => {
    const corrupt = Buffer.from(chunk({ type: 'message_stop' }));
    corrupt[corrupt.length - 6] = (corrupt[corrupt.length - 6] as number) ^ 0xff;
    await expect(sseOf([corrupt])).rejects.toThrow(/checksum/i);
    const whole = chunk({ type: 'message_stop' });
    await expect(sseOf([whole.subarray(0, whole.length - 3)])).rejects.toThrow(/inside a frame/);
  });
});
