import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import { Readable, Writable } from 'node:stream';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HostContext } from '../functions/streaming-entry.ts';
import type { GatewayHost } from '../infra/local/gateway-host.ts';
import type { LocalFunction } from '../infra/local/local-functions.ts';
import { table } from './report.ts';
import { percentile, round } from './statistics.ts';

/**
 * CPU per streamed event: what this gateway spends to relay one upstream event to its client, measured on the
 * deployed code path — the function entry (writing to the response stream), the pipeline, the relay and, where the
 * route needs it, the translation — in one process, with the real store. Neither side of it is a socket: the
 * upstream is an in-memory stream that hands over one event per read, as a provider's tokens arrive, and the
 * client is a writable that takes every chunk at once. So the figure is the gateway's own work per event, not
 * the kernel's, and it is steady enough to compare two versions of the code.
 *
 * Each stream also pays a fixed cost per request (authentication, admission, settlement), so every scenario runs
 * short and long streams in alternation; a round's per-event figure is the slope, (CPU of the long streams − CPU
 * of the short ones) ÷ (their difference in events), and the median round is reported. CPU is the whole
 * process's (`process.cpuUsage`: every thread, the store's included).
 */
export interface StreamCpuPlan {
  shortEvents: number;
  longEvents: number;
  rounds: number;
  streamsPerMeasurement: number;
}

export interface StreamCpuScenario {
  name: string;
  microsecondsPerEvent: number;
  /** The spread of the rounds' figures, lowest to highest. */
  lowestRound: number;
  highestRound: number;
  eventsMeasured: number;
}

/** Where the measured connections point; `fetch` to it is answered in memory. */
export const benchUpstreamUrl = 'http://bench-upstream.invalid';

interface Scenario {
  name: string;
  functionId: 'chat-completions';
  path: string;
  body: (events: number) => Record<string, unknown>;
}

const question = [{ role: 'user', content: 'Stream me some tokens.' }];

export const streamCpuScenarios: readonly Scenario[] = [
  {
    // What the openai SDK sends by default: the gateway asks the upstream for usage and drops that one chunk.
    name: 'chat pass-through',
    functionId: 'chat-completions',
    path: '/v1/chat/completions',
    body: (events) => ({ model: 'openai/bench-events', messages: question, max_tokens: events, stream: true }),
  },
  {
    name: 'chat pass-through, include_usage',
    functionId: 'chat-completions',
    path: '/v1/chat/completions',
    body: (events) => ({
      model: 'openai/bench-events',
      messages: question,
      max_tokens: events,
      stream: true,
      stream_options: { include_usage: true },
    }),
  },
  {
    name: 'chat → messages (K2.7)',
    functionId: 'chat-completions',
    path: '/v1/chat/completions',
    body: (events) => ({ model: 'alpha/alpha-k2.7-code', messages: question, max_tokens: events, stream: true }),
  },
];

const chatChunk = (content: string, finishReason: string | null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_750_000_000, model: 'bench', choices: [{ index: 0, delta: content ? { content } : {}, finish_reason: finishReason }] })}\n\n`;

function chatStream(events: number): string[] {
  const frames = Array.from({ length: events }, (_, index) => chatChunk(`token ${index} `, null));
  frames.push(chatChunk('', 'stop'));
  const usage = { prompt_tokens: 12, completion_tokens: events, total_tokens: 12 + events };
  frames.push(
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_750_000_000, model: 'bench', choices: [], usage })}\n\n`,
  );
  frames.push('data: [DONE]\n\n');
  return frames;
}

const messagesEvent = (type: string, payload: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;

/** The messages format's stream, as the vendor orders it: https://docs.anthropic.com/en/docs/build-with-claude/streaming */
function messagesStream(events: number): string[] {
  return [
    messagesEvent('message_start', {
      message: {
        id: 'msg_bench',
        type: 'message',
        role: 'assistant',
        model: 'bench',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
    messagesEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: events }, (_, index) =>
      messagesEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `token ${index} ` } }),
    ),
    messagesEvent('content_block_stop', { index: 0 }),
    messagesEvent('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: events } }),
    messagesEvent('message_stop', {}),
  ];
}

/**
 * Answers the gateway's upstream calls to `benchUpstreamUrl` from memory: chat streams at `/chat/completions`,
 * messages streams at `/messages`, each as many content events as the request's `max_tokens`, one event per read.
 * The gateway calls upstreams with Node's own HTTP client (shared/net/upstream-transport.ts), so that is what is
 * stood in for here — `node:http`'s `request`, for this one host — through `syncBuiltinESMExports`, which makes the
 * modules that imported it see the stand-in; every other call goes out as usual.
 */
export function answerBenchUpstreamInMemory(): () => void {
  const originalRequest = http.request;
  const standIn = (url: unknown, _options: http.RequestOptions, answer: (incoming: http.IncomingMessage) => void) => {
    const sent: Buffer[] = [];
    return new Writable({
      write(chunk: Buffer, _encoding, done) {
        sent.push(chunk);
        done();
      },
      final(done) {
        const body = JSON.parse(Buffer.concat(sent).toString('utf8')) as { max_tokens?: number };
        const events = body.max_tokens ?? 16;
        const frames = String(url).endsWith('/messages') ? messagesStream(events) : chatStream(events);
        let next = 0;
        // One event per read, as a provider's tokens arrive.
        const incoming = new Readable({
          highWaterMark: 0,
          read() {
            const frame = frames[next++];
            this.push(frame === undefined ? null : Buffer.from(frame));
          },
        });
        answer(
          Object.assign(incoming, {
            statusCode: 200,
            statusMessage: 'OK',
            rawHeaders: ['content-type', 'text/event-stream'],
          }) as unknown as http.IncomingMessage,
        );
        done();
      },
    });
  };
  http.request = ((url: unknown, ...rest: unknown[]) => {
    if (!(url instanceof URL) || url.origin !== benchUpstreamUrl) {
      return (originalRequest as (...parameters: unknown[]) => http.ClientRequest)(url, ...rest);
    }
    return standIn(url, rest[0] as http.RequestOptions, rest[1] as (incoming: http.IncomingMessage) => void);
  }) as typeof http.request;
  syncBuiltinESMExports();
  return () => {
    http.request = originalRequest;
    syncBuiltinESMExports();
  };
}

/**
 * The response stream the Lambda runtime hands a streaming function: the prelude that `HttpResponseStream.from`
 * writes (status and headers, then eight NUL bytes) and then the body. It takes every chunk at once and keeps the
 * status and the last bytes, enough to see the stream's end.
 */
class DiscardingResponse extends Writable {
  statusCode = 0;
  text = '';
  #prelude: Buffer | undefined = Buffer.alloc(0);
  _onBeforeFirstWrite: ((write: (chunk: string | Uint8Array) => void) => void) | undefined;
  #wroteAny = false;
  setContentType(_contentType: string) {}
  override write(chunk: unknown, ...rest: unknown[]): boolean {
    if (!this.#wroteAny) {
      this.#wroteAny = true;
      this._onBeforeFirstWrite?.((part) => super.write(part));
    }
    return (super.write as (...parameters: unknown[]) => boolean)(chunk, ...rest);
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void) {
    if (this.#prelude !== undefined) {
      this.#prelude = Buffer.concat([this.#prelude, chunk]);
      const end = this.#prelude.indexOf(Buffer.alloc(8));
      if (end !== -1) {
        this.statusCode = (
          JSON.parse(this.#prelude.subarray(0, end).toString('utf8')) as { statusCode: number }
        ).statusCode;
        this.text = this.#prelude.subarray(end + 8).toString('utf8');
        this.#prelude = undefined;
      }
    } else {
      this.text = (this.text + chunk.toString('utf8')).slice(-64);
    }
    callback();
  }
}

function functionUrlEvent(path: string, key: string, body: Record<string, unknown>): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'bench',
      domainPrefix: 'bench',
      http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: crypto.randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}

export async function measureStreamCpu(
  host: GatewayHost,
  functions: Record<'chat-completions', LocalFunction>,
  key: string,
  plan: StreamCpuPlan,
): Promise<StreamCpuScenario[]> {
  const streamOnce = async (scenario: Scenario, events: number) => {
    const response = new DiscardingResponse();
    const context = { gatewayServices: host.services } as unknown as HostContext;
    await functions[scenario.functionId](
      functionUrlEvent(scenario.path, key, scenario.body(events)),
      response as never,
      context,
    );
    if (response.statusCode !== 200 || !response.text.includes('[DONE]')) {
      throw new Error(`a measured stream answered ${response.statusCode}: …${response.text}`);
    }
  };
  const drain = async () => {
    while (host.services.background.size > 0) await Promise.allSettled([...host.services.background]);
  };
  /** CPU of `streamsPerMeasurement` streams of `events` events, their settlements included. */
  const measure = async (scenario: Scenario, events: number) => {
    await drain();
    const before = process.cpuUsage();
    for (let index = 0; index < plan.streamsPerMeasurement; index++) await streamOnce(scenario, events);
    await drain();
    const used = process.cpuUsage(before);
    return used.user + used.system;
  };
  const extraEvents = plan.streamsPerMeasurement * (plan.longEvents - plan.shortEvents);
  const figures: StreamCpuScenario[] = [];
  for (const scenario of streamCpuScenarios) {
    // A first round warms the caches and the JIT.
    await measure(scenario, plan.longEvents);
    const slopes: number[] = [];
    for (let index = 0; index < plan.rounds; index++) {
      const short = await measure(scenario, plan.shortEvents);
      const long = await measure(scenario, plan.longEvents);
      slopes.push((long - short) / extraEvents);
    }
    figures.push({
      name: scenario.name,
      microsecondsPerEvent: round(percentile(slopes, 50)),
      lowestRound: round(Math.min(...slopes)),
      highestRound: round(Math.max(...slopes)),
      eventsMeasured: plan.rounds * plan.streamsPerMeasurement * (plan.shortEvents + plan.longEvents),
    });
  }
  return figures;
}

export function describeStreamCpu(figures: readonly StreamCpuScenario[]): string {
  return table([
    ['stream', 'CPU µs per event (median round)', 'rounds, lowest–highest', 'events'],
    ...figures.map((figure) => [
      figure.name,
      figure.microsecondsPerEvent.toFixed(2),
      `${figure.lowestRound.toFixed(2)}–${figure.highestRound.toFixed(2)}`,
      String(figure.eventsMeasured),
    ]),
  ]);
}
