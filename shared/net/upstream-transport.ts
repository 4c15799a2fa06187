import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { remembered } from '../cache/remembered.ts';
import { readWholeBody } from '../streams/read-whole-body.ts';
import { addressRefusal, guardedLookup, UpstreamAddressRefused, type UpstreamNetwork } from './upstream-address.ts';

export interface UpstreamRequestInit {
  method: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  signal: AbortSignal;
  network: UpstreamNetwork;
}

/** An upstream's answer: its status and headers at once, its body as it arrives or whole. */
export interface UpstreamResponse {
  readonly status: number;
  /** A header by name, any case; repeated ones joined with `, `. */
  readonly headers: { get(name: string): string | null };
  /**
   * The body as Node's readable of the answer, for a relay that reads it as it arrives. An abort after the headers
   * (a time-out, a client that left) destroys it with an error whose `cause` is the abort's reason.
   */
  readonly body: Readable;
  /** The whole body as text (UTF-8, a leading byte order mark dropped, as `fetch`'s `text()` reads it). */
  text(): Promise<string>;
  /** Drops the body and its connection (a redirect's, which is never read). */
  discard(): void;
}

/**
 * The one way the gateway opens an upstream connection: Node's own HTTP client, with a `lookup` that judges every
 * address a name resolves to when the socket connects (upstream-address.ts), and no redirect ever followed (this
 * client has no notion of one). Why not fetch with an undici dispatcher, whose `connect.lookup` does the same:
 * Node's built-in fetch takes no lookup, and undici's Agent with its HTTP parser would add about 250 KB to each
 * Lambda bundle (the budget is 400 KB; bench/lambda-bundles.ts). Its answer is a small object over Node's
 * `IncomingMessage`, not a WHATWG `Response`: the relay reads Node's stream directly, and a whole answer is
 * collected as bytes, with none of the web-stream adapters, `Headers` and body mixins per request in between.
 */
export function requestUpstream(target: string, init: UpstreamRequestInit): Promise<UpstreamResponse> {
  const url = parsedUrl(target);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // A literal address is never looked up, so the socket's lookup cannot judge it: judge it here.
  const refusal =
    url.username !== '' || url.password !== ''
      ? 'the address holds a user name or password'
      : isIP(host)
        ? addressRefusal(host, init.network)
        : undefined;
  if (refusal) return Promise.reject(new UpstreamAddressRefused(refusal));
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') return Promise.reject(new Error(`unsupported protocol ${url.protocol}`));
  const options: RequestOptions = {
    method: init.method,
    // A GET has no content, and says nothing of its length (RFC 9110 §8.6).
    headers:
      init.method === 'GET'
        ? init.headers
        : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
    agent: agentFor(init.network, secure),
  };
  const { signal } = init;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? httpsRequest : httpRequest)(url, options, (incoming) => {
      signal.removeEventListener('abort', onAbortBeforeAnswer);
      try {
        resolve(toResponse(incoming, signal));
      } catch (error) {
        incoming.destroy();
        reject(error);
      }
    });
    // The abort is watched here rather than through the `signal` option, which adds a stream watcher of its own.
    const onAbortBeforeAnswer = () => outgoing.destroy(abortError(signal));
    signal.addEventListener('abort', onAbortBeforeAnswer, { once: true });
    outgoing.on('error', (error) => {
      signal.removeEventListener('abort', onAbortBeforeAnswer);
      reject(error);
    });
    outgoing.end(init.method === 'GET' ? undefined : init.body);
  });
}

/** The error an aborted call fails with: an AbortError whose `cause` is the abort's reason, as `fetch` reports it. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('the upstream call was aborted'), { name: 'AbortError', cause: signal.reason });
}

/** Parsed upstream URLs by their text: a connection's few URLs are parsed once, not on every call. */
const parsedUrl = remembered((target) => new URL(target), 1_000);

const agents = new Map<string, HttpAgent>();

/** Keep-alive agents, one per network policy and scheme, so a permissive socket is never reused for a strict call. */
function agentFor(network: UpstreamNetwork, secure: boolean): HttpAgent {
  const key = `${network}:${secure ? 'https' : 'http'}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, lookup: guardedLookup(network) };
    agent = secure ? new HttpsAgent(options) : new HttpAgent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** Statuses whose answers have no body. */
const nullBodyStatuses = new Set([204, 205, 304]);

function toResponse(incoming: IncomingMessage, signal: AbortSignal): UpstreamResponse {
  const status = incoming.statusCode ?? 0;
  if (status < 200 || status > 599) throw new Error(`the upstream answered with status ${status}`);
  // An abort after the headers ends the body with the abort's reason, as fetch does, so a reader can tell a
  // time-out (or a client that left) from a broken connection.
  const onAbort = () => incoming.destroy(abortError(signal));
  signal.addEventListener('abort', onAbort, { once: true });
  incoming.once('close', () => signal.removeEventListener('abort', onAbort));
  if (nullBodyStatuses.has(status)) incoming.resume();
  return {
    status,
    headers: { get: (name) => headerOf(incoming.rawHeaders, name) },
    body: incoming,
    text: () => readText(incoming),
    discard: () => incoming.destroy(),
  };
}

/** One header from the raw list, whatever the case of its name; repeated ones joined as `Headers.get` joins them. */
function headerOf(rawHeaders: readonly string[], name: string): string | null {
  const wanted = name.toLowerCase();
  let value: string | null = null;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() !== wanted) continue;
    value = value === null ? (rawHeaders[index + 1] as string) : `${value}, ${rawHeaders[index + 1]}`;
  }
  return value;
}

const utf8 = new TextDecoder();

/** The whole body as text; rejects when the body breaks off before its end. */
async function readText(incoming: IncomingMessage): Promise<string> {
  const body = await readWholeBody(incoming, { brokenOff: 'the upstream answer ended before its body did' });
  return utf8.decode(body);
}
