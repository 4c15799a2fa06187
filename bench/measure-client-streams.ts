import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import OpenAI from 'openai';
import type { Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';
import { type Spread, spread } from './statistics.ts';

export interface ClientStreamFigures {
  clients: number;
  streams: number;
  /** From the client's request leaving it (its head written to the socket) to the upstream receiving it. */
  dispatchMs: Spread;
  /** From the program's call into the SDK to the upstream receiving the request (the SDK's own work included). */
  callToDispatchMs: Spread;
  /** From the upstream writing the first content chunk to the SDK handing it to the client. */
  firstChunkMs: Spread;
  /** The same for every content chunk of the stream. */
  chunkMs: Spread;
  /** From the client's call to the first content chunk in its hands. */
  timeToFirstChunkMs: Spread;
}

export interface ClientStreamPlan {
  /** How many clients stream at once, each its streams back to back (the next one as soon as the last ended). */
  clients: number;
  streamsPerClient: number;
  warmupPerClient: number;
}

/**
 * Streams as programs call the gateway: the official `openai` SDK (its fetch, its SSE parser), `stream: true`, each
 * stream read to its end and the next one sent at once, by `clients` clients at the same time, each with a key of
 * its own where the target has keys. Nothing here is timed inside the gateway: the times come from both ends of
 * the path on the machine's one monotonic clock. The client notes when it calls the SDK and when fetch writes the
 * request's head to the socket (undici's `sendHeaders` diagnostics channel); the instant upstream notes when each
 * request reached it (found again by a tag in the last message) and writes into every chunk when it wrote it; the
 * client notes when the SDK hands it each chunk. So the figures are what a client sees, including whatever queues
 * between requests (a previous stream's settlement, the other clients' requests).
 */
export async function measureClientStreams(
  target: Target,
  upstreamUrl: string,
  plan: ClientStreamPlan,
  keys?: readonly string[],
): Promise<ClientStreamFigures> {
  const clients = Array.from({ length: plan.clients }, (_, index) => clientFor(target, keys?.[index % keys.length]));
  const model = target.model(benchModels.instant);
  const calledAt = new Map<string, bigint>();
  const sentAt = new Map<string, bigint>();
  const onSendHeaders = (message: unknown) => {
    const tag = /\r?\nx-bench-tag: (\w+)\r?\n/i.exec(String((message as { headers?: unknown }).headers))?.[1];
    if (tag !== undefined) sentAt.set(tag, process.hrtime.bigint());
  };
  const firstChunk: number[] = [];
  const chunks: number[] = [];
  const timeToFirstChunk: number[] = [];

  const streamOnce = async (client: OpenAI, tag: string, measured: boolean) => {
    const called = process.hrtime.bigint();
    const stream = await client.chat.completions.create(
      {
        model,
        messages: [
          { role: 'system', content: 'You are a terse assistant.' },
          { role: 'user', content: `Say hello to the benchmark. bench-tag:${tag}` },
        ],
        max_tokens: 64,
        stream: true,
      },
      { headers: { 'x-bench-tag': tag } },
    );
    let first = true;
    for await (const chunk of stream) {
      const received = process.hrtime.bigint();
      const writtenAt = writtenAtOf(chunk.choices[0]?.delta?.content);
      if (writtenAt === undefined || !measured) continue;
      const delayMs = Number(received - writtenAt) / 1e6;
      chunks.push(delayMs);
      if (first) {
        first = false;
        firstChunk.push(delayMs);
        timeToFirstChunk.push(Number(received - called) / 1e6);
      }
    }
    if (measured) calledAt.set(tag, called);
  };

  const run = async (streams: number, measured: boolean, round: string) => {
    await Promise.all(
      clients.map(async (client, clientIndex) => {
        for (let index = 0; index < streams; index++)
          await streamOnce(client, `${round}c${clientIndex}n${index}`, measured);
      }),
    );
  };

  subscribe('undici:client:sendHeaders', onSendHeaders);
  try {
    await run(plan.warmupPerClient, false, 'w');
    await arrivals(upstreamUrl);
    await run(plan.streamsPerClient, true, 'm');
  } finally {
    unsubscribe('undici:client:sendHeaders', onSendHeaders);
  }
  const arrived = await arrivals(upstreamUrl);
  const dispatch: number[] = [];
  const callToDispatch: number[] = [];
  for (const [tag, called] of calledAt) {
    const at = arrived[tag];
    const sent = sentAt.get(tag);
    if (at === undefined) throw new Error(`the upstream never saw the request tagged ${tag}`);
    if (sent === undefined) throw new Error(`fetch never announced sending the request tagged ${tag}`);
    dispatch.push(Number(BigInt(at) - sent) / 1e6);
    callToDispatch.push(Number(BigInt(at) - called) / 1e6);
  }
  if (firstChunk.length !== calledAt.size) {
    throw new Error(`${calledAt.size - firstChunk.length} of ${calledAt.size} streams brought no timed chunk`);
  }
  return {
    clients: plan.clients,
    streams: calledAt.size,
    dispatchMs: spread(dispatch),
    callToDispatchMs: spread(callToDispatch),
    firstChunkMs: spread(firstChunk),
    chunkMs: spread(chunks),
    timeToFirstChunkMs: spread(timeToFirstChunk),
  };
}

/** An SDK client for the target: its base URL, the key from its Authorization header, its other headers as sent. */
function clientFor(target: Target, key: string | undefined): OpenAI {
  const { authorization, ...headers } = target.headers;
  return new OpenAI({
    baseURL: target.url.replace(/\/chat\/completions$/, ''),
    apiKey: key ?? authorization?.replace(/^Bearer /, '') ?? 'none',
    defaultHeaders: headers,
    maxRetries: 0,
  });
}

/** The instant upstream writes the monotonic time into each content chunk; anything else is not a timed chunk. */
function writtenAtOf(content: string | null | undefined): bigint | undefined {
  return typeof content === 'string' && /^\d+$/.test(content) ? BigInt(content) : undefined;
}

/** Arrival times the upstream noted since the last call, by tag (nanoseconds of the monotonic clock, as text). */
async function arrivals(upstreamUrl: string): Promise<Record<string, string>> {
  const response = await fetch(`${upstreamUrl}/bench/arrivals`);
  return (await response.json()) as Record<string, string>;
}
