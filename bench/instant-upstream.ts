import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmark's provider: an OpenAI-style chat-completions endpoint that answers at once, with replies built
 * ahead of time where it can, so that what the benchmark measures is the thing in front of it, not this server.
 * The test fake (test/support/fake-upstream) records every request and renders replies from plans; that is
 * right for tests and too much work per request here.
 *
 * The model name picks the behaviour, because it is the one field every gateway passes through unchanged:
 * - `bench-model`: a whole answer, or a stream of `streamChunks` chunks `chunkIntervalMs` apart, each carrying
 *   the monotonic time it was written (`process.hrtime`, shared by all processes of the machine), so that a
 *   client can tell how long each chunk spent in the gateway;
 * - `bench-hold`: a stream that sends its first chunk and then waits for `POST /bench/release`;
 * - `bench-large`: a stream of `largeStreamBytes`, written as fast as the reader takes it (with backpressure).
 *
 * A request whose last message ends with `bench-tag:<tag>` has the monotonic time its body arrived recorded under
 * that tag, which `GET /bench/arrivals` hands over (and forgets): the client's send time and this arrival, read
 * on the same clock, are how long the request took to get through whatever stands in between.
 */
export const benchModels = { instant: 'bench-model', hold: 'bench-hold', large: 'bench-large' } as const;

export const streamChunks = 20;
export const chunkIntervalMs = 1;
export const largeStreamBytes = 200 * 1024 * 1024;
/** Content per event of the large stream: a few provider-sized events per network write. */
const largeEventContentBytes = 16 * 1024;

export interface InstantUpstream {
  url: string;
  close(): Promise<void>;
}

const usage = {
  prompt_tokens: 12,
  completion_tokens: 8,
  total_tokens: 20,
  prompt_tokens_details: { cached_tokens: 0 },
};

const wholeAnswer = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_750_000_000,
    model: benchModels.instant,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the bench.' }, finish_reason: 'stop' }],
    usage,
  }),
);

const chunkPrefix = `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1750000000,"model":"bench","choices":[{"index":0,"delta":{"content":"`;
const chunkSuffix = `"},"finish_reason":null}]}\n\n`;
const stopChunk = `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1750000000,"model":"bench","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`;
const usageChunk = `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_750_000_000, model: 'bench', choices: [], usage })}\n\n`;
const done = 'data: [DONE]\n\n';

/** A chunk whose content is the time it is written, in nanoseconds of the monotonic clock. */
function timedChunk(): string {
  return `${chunkPrefix}${process.hrtime.bigint()}${chunkSuffix}`;
}

const largeFrame = Buffer.from(`${chunkPrefix}${'x'.repeat(largeEventContentBytes)}${chunkSuffix}`);

export async function startInstantUpstream(port = 0): Promise<InstantUpstream> {
  const held = new Set<{ response: ServerResponse; includeUsage: boolean }>();
  const arrivals = new Map<string, string>();

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  server.keepAliveTimeout = 60_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // When the request reached this server (its head, with the body in the same packets on loopback).
    const arrivedAt = process.hrtime.bigint();
    const path = request.url ?? '/';
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (path === '/bench/release') {
      const released = held.size;
      for (const stream of held) finishStream(stream.response, stream.includeUsage);
      held.clear();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ released }));
      return;
    }
    if (path === '/bench/arrivals') {
      const answer = JSON.stringify(Object.fromEntries(arrivals));
      arrivals.clear();
      response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      return;
    }
    if (path === '/bench/held') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ held: held.size }));
      return;
    }
    if (request.method !== 'POST' || !path.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = parseBody(Buffer.concat(chunks));
    if (body.tag !== undefined) arrivals.set(body.tag, String(arrivedAt));
    if (body.stream !== true) {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': wholeAnswer.byteLength });
      response.end(wholeAnswer);
      return;
    }
    response.socket?.setNoDelay(true);
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const includeUsage = body.includeUsage;
    switch (body.model) {
      case benchModels.hold: {
        response.write(timedChunk());
        const stream = { response, includeUsage };
        held.add(stream);
        response.once('close', () => held.delete(stream));
        return;
      }
      case benchModels.large:
        return writeLarge(response, includeUsage);
      default:
        return writePaced(response, includeUsage);
    }
  }

  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

interface BenchRequest {
  model: string | undefined;
  stream: boolean;
  includeUsage: boolean;
  tag: string | undefined;
}

const tagPattern = /bench-tag:(\w+)$/;

function parseBody(raw: Buffer): BenchRequest {
  try {
    const value = JSON.parse(raw.toString('utf8')) as {
      model?: unknown;
      stream?: unknown;
      stream_options?: { include_usage?: unknown } | null;
      messages?: { content?: unknown }[];
    };
    const lastContent = value.messages?.at(-1)?.content;
    return {
      model: typeof value.model === 'string' ? value.model : undefined,
      stream: value.stream === true,
      includeUsage: value.stream_options?.include_usage === true,
      tag: typeof lastContent === 'string' ? tagPattern.exec(lastContent)?.[1] : undefined,
    };
  } catch {
    return { model: undefined, stream: false, includeUsage: false, tag: undefined };
  }
}

function finishStream(response: ServerResponse, includeUsage: boolean): void {
  response.write(stopChunk);
  if (includeUsage) response.write(usageChunk);
  response.end(done);
}

async function writePaced(response: ServerResponse, includeUsage: boolean): Promise<void> {
  for (let index = 0; index < streamChunks; index++) {
    if (response.destroyed) return;
    response.write(timedChunk());
    await new Promise((resolve) => setTimeout(resolve, chunkIntervalMs));
  }
  finishStream(response, includeUsage);
}

async function writeLarge(response: ServerResponse, includeUsage: boolean): Promise<void> {
  let sent = 0;
  while (sent < largeStreamBytes) {
    if (response.destroyed) return;
    sent += largeFrame.byteLength;
    // Backpressure: a slow reader slows this writer instead of filling its memory.
    if (!response.write(largeFrame)) await drainOrClose(response);
  }
  finishStream(response, includeUsage);
}

function drainOrClose(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      response.off('drain', settle);
      response.off('close', settle);
      resolve();
    };
    response.on('drain', settle);
    response.on('close', settle);
  });
}
