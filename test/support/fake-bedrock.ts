import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { checkSignature } from './fake-bedrock/bedrock-signature-check.ts';
import { converseWire } from './fake-bedrock/converse-wire.ts';
import { anthropicMessagesWire } from './fake-upstream/anthropic-messages.ts';
import type { AnswerBehaviour } from './fake-upstream/behaviour.ts';
import { isRecord, type JsonRecord } from './fake-upstream/json-fields.ts';
import { planAnswer } from './fake-upstream/plan-answer.ts';
import type { RecordedRequest } from './fake-upstream/recorded-request.ts';
import type { FakeUpstreamRoute } from './fake-upstream/route.ts';

export { fakeAwsCredentials, fakeBedrockApiKey } from './fake-bedrock/bedrock-signature-check.ts';

/**
 * A stand-in for Amazon Bedrock's runtime on loopback that checks what AWS checks: each request's SigV4
 * signature, recomputed with @smithy/signature-v4 from the known test credentials (403 as Bedrock answers a bad
 * one), then answers InvokeModel, InvokeModelWithResponseStream and CountTokens for Anthropic models as Bedrock
 * does: the messages answer as JSON; a stream in AWS's binary event-stream framing (encoded with
 * @smithy/eventstream-codec), one `chunk` event per messages event, its `bytes` the event's JSON in base64; errors
 * as `{ message }` with the exception in `x-amzn-ErrorType`; mid-stream failures as exception frames. Every other
 * model is answered through Converse and ConverseStream (fake-bedrock/converse-wire.ts): the answer's JSON, or one
 * frame per stream event, its `:event-type` the event's name and its payload the event's JSON.
 */

export type FakeBedrockBehaviour =
  | ({ type: 'answer' } & AnswerBehaviour & {
        /** Ends the stream after this many messages events with an exception frame. */
        streamException?: { afterEvents: number; exception: string; message?: string };
        /** Holds the stream after this many events until the client leaves. */
        holdAfterEvents?: number;
        /** Drops the connection after this many frames, as a broken connection would. */
        resetAfterEvents?: number;
        /** Sends this frame with one payload byte flipped: its message CRC no longer matches. */
        corruptFrameAt?: number;
        /** Converse: this many of the input tokens reported as cache writes (`cacheWriteInputTokens`). */
        cacheWriteInputTokens?: number;
      })
  | { type: 'error'; status: number; exception: string; message?: string }
  /** The connection is dropped before any byte of the answer. */
  | { type: 'reset' }
  /** No answer ever comes, until the client leaves. */
  | { type: 'hang' };

export interface FakeBedrockRequest {
  method: string;
  /** As received, the model id escaped. */
  rawPath: string;
  modelId: string | undefined;
  operation: string | undefined;
  headers: Record<string, string>;
  body: string;
  json: unknown;
  /** Set when the signature check refused it. */
  refusedAs: string | undefined;
  /** The client closed the connection before the answer ended. */
  clientClosedEarly: boolean;
}

export interface FakeBedrock {
  readonly url: string;
  readonly requests: readonly FakeBedrockRequest[];
  nextResponse(...behaviours: FakeBedrockBehaviour[]): void;
  /** Decides each request's behaviour by what it holds (a marker in the prompt, say); queued ones go first. */
  setScenario(scenario: ((request: FakeBedrockRequest) => FakeBedrockBehaviour | undefined) | undefined): void;
  waitForClientClose(index: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const pathPattern = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|count-tokens|converse|converse-stream)$/;

/** One event-stream frame as Bedrock writes it. */
export function eventFrame(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'event' },
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

export function exceptionFrame(exception: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'exception' },
      ':exception-type': { type: 'string', value: exception },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** The messages answer the fake upstream's messages wire plans for this request: whole, or its stream's events. */
function messagesReply(request: JsonRecord, index: number, behaviour: AnswerBehaviour, streamed: boolean) {
  const route: FakeUpstreamRoute = {
    wire: anthropicMessagesWire,
    operation: 'generate',
    model: 'bedrock-model',
    streamModeFromPath: streamed ? 'sse' : 'none',
  };
  const plan = planAnswer(route, { index } as RecordedRequest, request, behaviour);
  return anthropicMessagesWire.answer(plan);
}

/** Each SSE frame's JSON. */
function eventsOf(frames: readonly string[]): unknown[] {
  return frames.map((frame) => JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null'));
}

/** The Converse answer planned for this request: whole, or its stream's events as frames. */
function converseReply(request: JsonRecord, index: number, behaviour: AnswerBehaviour, cacheWrites: number) {
  const wire = converseWire(cacheWrites);
  const route: FakeUpstreamRoute = { wire, operation: 'generate', model: 'bedrock-model', streamModeFromPath: 'none' };
  return { wire, route, plan: planAnswer(route, { index } as RecordedRequest, request, behaviour) };
}

/** What Bedrock refuses in a Converse body: fields Converse does not have, no messages. */
function validateConverseBody(body: JsonRecord): string | undefined {
  for (const key of ['model', 'stream', 'anthropic_version', 'max_tokens']) {
    if (key in body) return `extraneous key [${key}] is not permitted`;
  }
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: must have at least 1 item';
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message['content'])) return 'messages.content: must be a list of blocks';
  }
  return undefined;
}

export async function startFakeBedrock(): Promise<FakeBedrock> {
  const requests: FakeBedrockRequest[] = [];
  const queue: FakeBedrockBehaviour[] = [];
  let scenario: ((request: FakeBedrockRequest) => FakeBedrockBehaviour | undefined) | undefined;
  const changes = new EventEmitter();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const rawPath = (request.url ?? '/').split('?')[0] as string;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers[name] = value;
    }
    const matched = pathPattern.exec(rawPath);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const record: FakeBedrockRequest = {
      method: request.method ?? 'GET',
      rawPath,
      modelId: matched ? decodeURIComponent(matched[1] as string) : undefined,
      operation: matched?.[2],
      headers,
      body,
      json,
      refusedAs: undefined,
      clientClosedEarly: false,
    };
    requests.push(record);
    response.on('close', () => {
      if (!response.writableFinished) record.clientClosedEarly = true;
      changes.emit('change');
    });
    const refusal = await checkSignature({ method: record.method, path: rawPath, headers, body });
    if (refusal) {
      record.refusedAs = refusal.exception;
      return writeError(response, refusal.status, refusal.exception, refusal.message);
    }
    if (!matched || record.method !== 'POST')
      return writeError(response, 404, 'UnknownOperationException', 'No such operation.');
    const behaviour = queue.shift() ?? scenario?.(record) ?? { type: 'answer' };
    if (behaviour.type === 'reset') {
      response.socket?.destroy();
      return;
    }
    if (behaviour.type === 'hang') return;
    if (behaviour.type === 'error') {
      return writeError(response, behaviour.status, behaviour.exception, behaviour.message ?? behaviour.exception);
    }
    const invokeBody = isRecord(json) ? json : {};
    if (record.operation === 'count-tokens') {
      const encoded = (invokeBody as { input?: { invokeModel?: { body?: string } } }).input?.invokeModel?.body;
      const counted = encoded === undefined ? undefined : JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
      if (!isRecord(counted))
        return writeError(response, 400, 'ValidationException', 'input.invokeModel.body is required');
      return writeJson(response, 200, { inputTokens: (Buffer.from(encoded as string, 'base64').length % 97) + 3 });
    }
    if (record.operation === 'converse' || record.operation === 'converse-stream') {
      const refused = validateConverseBody(invokeBody);
      if (refused) return writeError(response, 400, 'ValidationException', refused);
      const { wire, plan } = converseReply(
        invokeBody,
        requests.length - 1,
        behaviour,
        behaviour.cacheWriteInputTokens ?? 0,
      );
      const reply = wire.answer({ ...plan, streamMode: record.operation === 'converse' ? 'none' : 'sse' });
      if (reply.kind === 'json') return writeJson(response, 200, reply.body);
      const frames = reply.frames.map((frame) => {
        const type = /^event: (.*)$/m.exec(frame)?.[1] ?? 'unknown';
        return eventFrame(type, JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null'));
      });
      return streamFrames(response, frames, behaviour);
    }
    const validation = validateInvokeBody(invokeBody);
    if (validation) return writeError(response, 400, 'ValidationException', validation);
    const reply = messagesReply(invokeBody, requests.length - 1, behaviour, record.operation !== 'invoke');
    if (reply.kind === 'json') return writeJson(response, 200, reply.body);
    const frames = eventsOf(reply.frames).map((event) =>
      eventFrame('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') }),
    );
    return streamFrames(response, frames, behaviour);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) writeError(response, 500, 'InternalServerException', String(error));
      else response.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    nextResponse: (...behaviours) => queue.push(...behaviours),
    setScenario(next) {
      scenario = next;
    },
    async waitForClientClose(index) {
      const deadline = AbortSignal.timeout(5_000);
      while (!requests[index]?.clientClosedEarly) await once(changes, 'change', { signal: deadline });
    },
    reset() {
      requests.length = 0;
      queue.length = 0;
      scenario = undefined;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** What Bedrock refuses in an Anthropic invoke body: no version, a `model` or `stream` field, no cap. */
function validateInvokeBody(body: JsonRecord): string | undefined {
  if (body['anthropic_version'] !== 'bedrock-2023-05-31') return 'anthropic_version: bedrock-2023-05-31 is required';
  if ('model' in body) return 'extraneous key [model] is not permitted';
  if ('stream' in body) return 'extraneous key [stream] is not permitted';
  if (typeof body['max_tokens'] !== 'number') return 'max_tokens: field required';
  return undefined;
}

/** A stream as Bedrock sends it: the frames one write each, broken off or held where the behaviour says. */
async function streamFrames(
  response: ServerResponse,
  frames: readonly Uint8Array[],
  behaviour: Extract<FakeBedrockBehaviour, { type: 'answer' }>,
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-bedrock-content-type': 'application/json',
  });
  response.flushHeaders();
  for (const [position, frame] of frames.entries()) {
    if (behaviour.streamException && position === behaviour.streamException.afterEvents) {
      const { exception, message = 'The model stream failed.' } = behaviour.streamException;
      response.end(exceptionFrame(exception, message));
      return;
    }
    if (behaviour.holdAfterEvents === position) return;
    if (behaviour.resetAfterEvents === position) {
      response.socket?.destroy();
      return;
    }
    response.write(behaviour.corruptFrameAt === position ? corrupted(frame) : frame);
    // One frame per write, so a client sees them arrive separately.
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

/** The frame with the last byte before its message CRC flipped: a frame the codec must refuse. */
function corrupted(frame: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(frame);
  const at = copy.length - 5;
  copy[at] = (copy[at] ?? 0) ^ 0xff;
  return copy;
}

function writeJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function writeError(response: ServerResponse, status: number, exception: string, message: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'fake-request-id',
  });
  response.end(JSON.stringify({ message }));
}
