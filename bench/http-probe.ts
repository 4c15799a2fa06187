import { type Agent, request } from 'node:http';
import { createParser } from 'eventsource-parser';

/** Where and how to send a chat completion: the direct upstream, this gateway or the peer. */
export interface Target {
  name: string;
  /** The full chat-completions URL. */
  url: string;
  headers: Record<string, string>;
  /** The model name this target expects for a bench model (`openai/` + name on this gateway). */
  model: (benchModel: string) => string;
}

export interface Exchange {
  status: number;
  /** From sending the request to the last byte of the answer. */
  totalMs: number;
  /** From sending the request to the first byte of the body. */
  firstByteMs: number;
  /** For streams: per chunk, from the upstream writing it to this client reading it. */
  chunkDelaysMs: number[];
  bytes: number;
}

/**
 * One request over a keep-alive agent, timed with the monotonic clock. The stream chunks of the instant upstream
 * carry the monotonic time they were written, which every process of the machine shares, so a chunk's delay is
 * measured end to end without guessing where the time went.
 */
export function exchange(
  agent: Agent,
  target: Target,
  body: Buffer,
  options: { discardBody?: boolean; onFirstByte?: () => void } = {},
): Promise<Exchange> {
  const url = new URL(target.url);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let firstByte: bigint | undefined;
    let bytes = 0;
    const chunkDelaysMs: number[] = [];
    const parser = createParser({
      onEvent(event) {
        const sentAt = sentAtOf(event.data);
        if (sentAt !== undefined) chunkDelaysMs.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
      },
    });
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        agent,
        headers: { ...target.headers, 'content-type': 'application/json', 'content-length': body.byteLength },
      },
      (response) => {
        const streamed = (response.headers['content-type'] ?? '').includes('text/event-stream');
        const decoder = new TextDecoder();
        response.on('data', (chunk: Buffer) => {
          if (firstByte === undefined) {
            firstByte = process.hrtime.bigint();
            options.onFirstByte?.();
          }
          bytes += chunk.byteLength;
          if (streamed && !options.discardBody) parser.feed(decoder.decode(chunk, { stream: true }));
        });
        response.on('end', () => {
          const ended = process.hrtime.bigint();
          resolve({
            status: response.statusCode ?? 0,
            totalMs: Number(ended - started) / 1e6,
            firstByteMs: Number((firstByte ?? ended) - started) / 1e6,
            chunkDelaysMs,
            bytes,
          });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The instant upstream's chunk content is the time it was written; anything else is not a timed chunk. */
function sentAtOf(data: string): bigint | undefined {
  if (data === '[DONE]') return undefined;
  try {
    const chunk = JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] };
    const content = chunk.choices?.[0]?.delta?.content;
    return typeof content === 'string' && /^\d+$/.test(content) ? BigInt(content) : undefined;
  } catch {
    return undefined;
  }
}

export function chatBody(model: string, stream: boolean): Buffer {
  return Buffer.from(
    JSON.stringify({
      model,
      messages: [
        { role: 'system', content: 'You are a terse assistant.' },
        { role: 'user', content: 'Say hello to the benchmark.' },
      ],
      max_tokens: 64,
      ...(stream ? { stream: true } : {}),
    }),
  );
}
