import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import OpenAI from 'openai';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processMemory } from '../../bench/process-memory.ts';
import { defaultLingeringBounds } from '../../infra/local/lingering-close.ts';
import { generateKeySecret } from '../../shared/auth/key-secret.ts';
import { type GatewayChild, startGatewayChild } from '../support/gateway-child.ts';

/*
 * Issue 19 item 1: a body over the limit (2 MB by default) gets a 413 the client can read, whoever the client is and
 * however it sends the body. The gateway runs in a process of its own, as `npm start` runs it, so that its memory
 * is its own to measure.
 */

let dataDir: string;
let gateway: GatewayChild;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-oversized-'));
  gateway = await startGatewayChild({ dataDir, adminKey: generateKeySecret('gw') });
});
afterAll(async () => {
  gateway?.kill('SIGTERM');
  await gateway?.exited;
  await rm(dataDir, { recursive: true, force: true });
});

const megabyte = 1_000_000;
const sizes = { '2.2 MB': 2.2 * megabyte, '20 MB': 20 * megabyte } as const;
const repetitions = 100;
/**
 * The SDK serialises each 20 MB request itself (JSON.stringify, then UTF-8 for fetch), in the test's own process:
 * 100 of them cost about two minutes of a loaded 2-core machine, so that one pairing runs 25 times.
 */
const sdkLargeRepetitions = 25;
const concurrency = 4;
const path = '/v1/chat/completions';

/** A chat request of about `size` bytes: what a program that attached a large file would send. */
function chatBody(size: number): string {
  const request = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: '' }] };
  const content = 'x'.repeat(size - JSON.stringify(request).length);
  return JSON.stringify({ ...request, messages: [{ role: 'user', content }] });
}

/** What a client read back: the status and the error code of the OpenAI envelope. */
interface Answer {
  status: number;
  code: unknown;
}

type Framing = 'content-length' | 'chunked';

/** Node's own client; the chunked body goes in 64 KiB writes, as a program streaming a file would send it. */
function nodeHttp(body: Buffer, framing: Framing): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${gateway.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk-anything',
        'content-type': 'application/json',
        ...(framing === 'content-length' ? { 'content-length': String(body.length) } : {}),
      },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString()) as { error?: { code?: unknown } };
        resolve({ status: response.statusCode ?? 0, code: parsed.error?.code });
      });
    });
    if (framing === 'content-length') request.end(body);
    else Readable.from(pieces(body)).pipe(request);
  });
}

function* pieces(body: Buffer): Generator<Buffer> {
  for (let offset = 0; offset < body.length; offset += 65_536) yield body.subarray(offset, offset + 65_536);
}

/** undici, the client under Node's fetch; a body from an iterable has no stated length and goes chunked. */
async function undici(body: Buffer, framing: Framing): Promise<Answer> {
  const response = await undiciRequest(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-anything', 'content-type': 'application/json' },
    body: framing === 'content-length' ? body : Readable.from(pieces(body)),
  });
  const parsed = (await response.body.json()) as { error?: { code?: unknown } };
  return { status: response.statusCode, code: parsed.error?.code };
}

/** The official openai SDK; for chunked, its fetch is handed the body as a stream (no length to state). */
async function openaiSdk(body: Buffer, framing: Framing): Promise<Answer> {
  const streamingFetch: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      body: Readable.toWeb(Readable.from(pieces(Buffer.from(init?.body as string)))) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
  const client = new OpenAI({
    apiKey: 'sk-anything',
    baseURL: `${gateway.url}/v1`,
    maxRetries: 0,
    ...(framing === 'chunked' ? { fetch: streamingFetch } : {}),
  });
  const request = parsedOnce(body);
  try {
    await client.chat.completions.create(request);
    return { status: 200, code: undefined };
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { status: error.status ?? 0, code: error.code };
  }
}

const parsed = new WeakMap<Buffer, OpenAI.ChatCompletionCreateParamsNonStreaming>();
function parsedOnce(body: Buffer): OpenAI.ChatCompletionCreateParamsNonStreaming {
  let request = parsed.get(body);
  if (!request) {
    request = JSON.parse(body.toString()) as OpenAI.ChatCompletionCreateParamsNonStreaming;
    parsed.set(body, request);
  }
  return request;
}

const clients = { 'node:http': nodeHttp, undici, 'openai SDK': openaiSdk } as const;

/** A call that never settles fails its test with what it is instead of hanging the file. */
function withinDeadline<Result>(call: Promise<Result>): Promise<Result> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer and no error within 60 s')), 60_000);
  });
  return Promise.race([call, deadline]).finally(() => clearTimeout(timer));
}

/** Runs `count` calls with at most `concurrency` in flight; every answer, in order. */
async function runMany<Result>(count: number, call: () => Promise<Result>): Promise<Result[]> {
  const results: Result[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      results.push(await call());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

describe('a body over the limit', () => {
  for (const [sizeName, size] of Object.entries(sizes)) {
    const body = Buffer.from(chatBody(size));
    for (const [clientName, client] of Object.entries(clients)) {
      for (const framing of ['content-length', 'chunked'] as const) {
        const times = clientName === 'openai SDK' && size > 10 * megabyte ? sdkLargeRepetitions : repetitions;
        it(`${sizeName}, ${framing}, ${clientName}: all ${times} read 413 request_too_large`, async () => {
          const answers = await runMany(times, () =>
            withinDeadline(client(body, framing)).then(
              (answer) => `${answer.status} ${String(answer.code)}`,
              (error: unknown) => `failed: ${String((error as Error).message ?? error)}`,
            ),
          );
          // Every answer listed, so a failure shows what the clients that missed the 413 saw instead.
          expect(answers).toEqual(Array.from({ length: times }, () => '413 request_too_large'));
        }, 120_000);
      }
    }
  }

  it('is dropped as it arrives: 16 bodies of 20 MB at once leave the gateway’s peak memory within 64 MB of where it was', async () => {
    const body = Buffer.from(chatBody(sizes['20 MB']));
    // Warm: the first oversized bodies set up whatever the discard path needs once.
    await Promise.all(Array.from({ length: 4 }, () => nodeHttp(body, 'chunked')));
    const before = await processMemory(gateway.pid);
    const answers = await Promise.all(Array.from({ length: 16 }, () => nodeHttp(body, 'chunked')));
    const after = await processMemory(gateway.pid);
    expect(answers.every((answer) => answer.status === 413)).toBe(true);
    // Kept rather than dropped, the 320 MB in flight would raise the peak by hundreds of megabytes.
    expect(after.peakRssMb - before.peakRssMb).toBeLessThan(64);
  }, 120_000);

  it('is read no further than its bound: a client that sends forever is cut off', async () => {
    // A raw socket, so nothing in a client library decides when to stop: it writes chunks for as long as it can.
    const { hostname, port } = new URL(gateway.url);
    const socket = connect(Number(port), hostname);
    let received = '';
    let sent = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer sk-anything\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(65_536, 0x20), Buffer.from('\r\n')]);
    const pump = () => {
      while (!socket.destroyed) {
        sent += 65_536;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain('"code":"request_too_large"');
    // Cut at the byte bound (64 MiB past the limit); the socket buffers in between hold a few megabytes more.
    expect(sent).toBeLessThan(defaultLingeringBounds.maxBytes * 2);
  }, 120_000);
});
