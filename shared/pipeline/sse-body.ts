import type { Readable } from 'node:stream';
import type { UpstreamResponse } from '../net/upstream-transport.ts';
import type { UpstreamWireFormat } from '../wires/upstream-wire-format.ts';

/**
 * A streamed answer's body as SSE, ready for the relay: as it came where it is SSE, converted where the wire
 * frames its streams otherwise (Bedrock's binary event stream); `undefined` when the answer is not a stream (a
 * whole JSON body, read and relayed as one).
 */
export async function sseBodyOf(
  upstreamWire: Pick<UpstreamWireFormat<unknown, unknown>, 'binaryStream'>,
  response: UpstreamResponse,
  contentType: string,
): Promise<Readable | undefined> {
  if (contentType.includes('text/event-stream')) return response.body;
  const binary = upstreamWire.binaryStream;
  if (binary && contentType.includes(binary.contentType)) return binary.toSse(response.body);
  return undefined;
}
