import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnswerBehaviour, UpstreamBehaviour } from './behaviour.ts';
import { isRecord, type JsonRecord } from './json-fields.ts';
import { openAiChatWire } from './openai-chat.ts';
import { planAnswer } from './plan-answer.ts';
import {
  type ExchangeOutcome,
  flattenHeaders,
  type MutableRecordedRequest,
  parseJson,
  type RecordedRequest,
} from './recorded-request.ts';
import { type ReplyTarget, writeStream, writeWholeBody } from './reply-writer.ts';
import { type FakeUpstreamRoute, routeFor } from './route.ts';

/** Decides the behaviour of a request that no queued `nextResponse` claimed; `undefined` answers normally. */
export type Scenario = (request: RecordedRequest) => UpstreamBehaviour | undefined;

export interface FakeUpstream {
  /** `http://127.0.0.1:PORT`; any path prefix works, so use e.g. `${url}/v1` as a provider base URL. */
  readonly url: string;
  /** Every request received, in order, including the ones still running. */
  readonly requests: readonly RecordedRequest[];
  /** The model ids every wire's model list (`GET …/models`) shows, until the next reset; two by default. */
  setModels(ids: readonly string[]): void;
  /** Queues behaviours for the next requests, first in first out; the queue goes before the scenario. */
  nextResponse(...behaviours: UpstreamBehaviour[]): void;
  setScenario(scenario: Scenario | undefined): void;
  waitForRequest(index: number, timeoutMilliseconds?: number): Promise<RecordedRequest>;
  /** Resolves with how the exchange ended, once it has. */
  waitForOutcome(index: number, timeoutMilliseconds?: number): Promise<ExchangeOutcome>;
  /** Resolves once the client closed the connection early; rejects if the exchange ended any other way. */
  waitForClientClose(index: number, timeoutMilliseconds?: number): Promise<RecordedRequest>;
  /** Forgets requests, the queue and the scenario, for the next test. */
  reset(): void;
  close(): Promise<void>;
}

const defaultTimeoutMilliseconds = 5_000;
const defaultModels = ['fake-model-a', 'fake-model-b'];

export async function startFakeUpstream(): Promise<FakeUpstream> {
  let requests: MutableRecordedRequest[] = [];
  const queue: UpstreamBehaviour[] = [];
  let scenario: Scenario | undefined;
  let models: readonly string[] = defaultModels;
  let closing = false;
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const notify = () => changes.emit('change');

  async function waitUntil<Result>(probe: () => Result | undefined, timeout: number, what: string): Promise<Result> {
    const signal = AbortSignal.timeout(timeout);
    for (;;) {
      const result = probe();
      if (result !== undefined) return result;
      try {
        await once(changes, 'change', { signal });
      } catch {
        throw new Error(`fake upstream: no ${what} within ${timeout} ms`);
      }
    }
  }

  function waitForOutcome(index: number, timeout = defaultTimeoutMilliseconds): Promise<ExchangeOutcome> {
    return waitUntil(
      () => {
        const outcome = requests[index]?.outcome;
        return outcome === 'pending' ? undefined : outcome;
      },
      timeout,
      `end of request ${index}`,
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    if (rawBody === undefined) return;
    const url = new URL(request.url ?? '/', 'http://fake-upstream');
    const query = Object.fromEntries(url.searchParams);
    const headers = flattenHeaders(request.headers);
    const route = routeFor(request.method ?? 'GET', decodeURIComponent(url.pathname), query, headers);
    const record: MutableRecordedRequest = {
      index: requests.length,
      method: request.method ?? 'GET',
      path: url.pathname,
      query,
      headers,
      rawBody,
      json: parseJson(rawBody),
      wire: route?.wire.name,
      outcome: 'pending',
      clientClosedEarly: false,
      chunksSent: 0,
      receivedAtMs: performance.now(),
      closedAtMs: undefined,
    };
    requests.push(record);
    const target = trackExchange(record, response);
    notify();

    if (!route) {
      const body = openAiChatWire.errorBody({ status: 404, message: `fake upstream serves no ${url.pathname}` });
      return writeWholeBody(target, 404, JSON.stringify(body), {});
    }
    const behaviour = queue.shift() ?? scenario?.(record) ?? { type: 'answer' };
    await reply(target, route, record, behaviour, models);
  }

  function trackExchange(record: MutableRecordedRequest, response: ServerResponse): ReplyTarget {
    const abandon = new AbortController();
    let destroyedOnPurpose = false;
    response.socket?.setNoDelay(true);
    response.on('close', () => {
      record.closedAtMs = performance.now();
      if (response.writableFinished) record.outcome = 'finished';
      else record.outcome = destroyedOnPurpose || closing ? 'server-destroyed' : 'client-closed';
      record.clientClosedEarly = record.outcome === 'client-closed';
      abandon.abort();
      notify();
    });
    return {
      response,
      abandoned: abandon.signal,
      destroySocket() {
        destroyedOnPurpose = true;
        response.socket?.destroy();
      },
      recordChunkSent() {
        record.chunksSent += 1;
        notify();
      },
    };
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Surface a broken fake to the test through the reply rather than losing it.
      if (!response.headersSent) {
        const message = `fake upstream failed: ${error instanceof Error ? error.message : String(error)}`;
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message, type: 'server_error' } }));
      } else {
        response.destroy();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    setModels(ids) {
      models = [...ids];
    },
    nextResponse(...behaviours) {
      queue.push(...behaviours);
    },
    setScenario(next) {
      scenario = next;
    },
    waitForRequest(index, timeout = defaultTimeoutMilliseconds) {
      return waitUntil(() => requests[index], timeout, `request ${index}`);
    },
    waitForOutcome,
    async waitForClientClose(index, timeout = defaultTimeoutMilliseconds) {
      const outcome = await waitForOutcome(index, timeout);
      const record = requests[index];
      if (outcome !== 'client-closed' || !record) {
        throw new Error(`fake upstream: request ${index} ended as ${outcome}, not closed by the client`);
      }
      return record;
    },
    reset() {
      requests = [];
      queue.length = 0;
      scenario = undefined;
      models = defaultModels;
    },
    async close() {
      closing = true;
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

async function reply(
  target: ReplyTarget,
  route: FakeUpstreamRoute,
  record: RecordedRequest,
  behaviour: UpstreamBehaviour,
  models: readonly string[],
): Promise<void> {
  const request: JsonRecord = isRecord(record.json) ? record.json : {};
  switch (behaviour.type) {
    case 'hang':
      return;
    case 'error': {
      const message = behaviour.message ?? `fake upstream error ${behaviour.status}`;
      const body = behaviour.body ?? route.wire.errorBody({ status: behaviour.status, message });
      return writeWholeBody(target, behaviour.status, JSON.stringify(body), behaviour, behaviour.headers);
    }
    case 'answer': {
      if (route.operation === 'model-list') {
        if (!route.wire.modelListBody) throw new Error(`the ${route.wire.name} wire has no model list`);
        const body = route.wire.modelListBody(models);
        return writeWholeBody(target, 200, JSON.stringify(body), behaviour, behaviour.headers);
      }
      const refusal = route.operation === 'generate' ? route.wire.refusal?.(request) : undefined;
      if (refusal === undefined) return answer(target, route, record, request, behaviour);
      const status = refusal.status ?? 400;
      const body = route.wire.errorBody({ ...refusal, status });
      return writeWholeBody(target, status, JSON.stringify(body), behaviour);
    }
    default: {
      const unknownBehaviour: never = behaviour;
      throw new Error(`unknown behaviour ${JSON.stringify(unknownBehaviour)}`);
    }
  }
}

async function answer(
  target: ReplyTarget,
  route: FakeUpstreamRoute,
  record: RecordedRequest,
  request: JsonRecord,
  behaviour: AnswerBehaviour,
): Promise<void> {
  const plan = planAnswer(route, record, request, behaviour);
  if (route.operation === 'count-tokens') {
    if (!route.wire.countTokensBody) throw new Error(`the ${route.wire.name} wire has no token count`);
    const body = route.wire.countTokensBody(plan.usage);
    return writeWholeBody(target, 200, JSON.stringify(body), behaviour, behaviour.headers);
  }
  const wireReply = route.wire.answer(plan);
  if (wireReply.kind === 'json') {
    return writeWholeBody(target, wireReply.status, JSON.stringify(wireReply.body), behaviour, behaviour.headers);
  }
  let frames = wireReply.frames;
  if (behaviour.streamError) {
    const { afterChunks, status = 500, message = 'fake upstream failed mid-stream' } = behaviour.streamError;
    frames = [...frames.slice(0, afterChunks), route.wire.streamErrorFrame({ status, message }, afterChunks)];
  }
  if (behaviour.endAfterChunks !== undefined) frames = frames.slice(0, behaviour.endAfterChunks);
  return writeStream(target, wireReply.contentType, frames, behaviour, behaviour.headers);
}

/** The whole body as text; `undefined` when the client went away while sending it. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of request) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}
