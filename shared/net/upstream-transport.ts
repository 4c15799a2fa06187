import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { addressRefusal, guardedLookup, UpstreamAddressRefused, type UpstreamNetwork } from './upstream-address.ts';

export interface UpstreamRequestInit {
  method: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  signal: AbortSignal;
  network: UpstreamNetwork;
}

/**
 * The one way the gateway opens an upstream connection: Node's own HTTP client, with a `lookup` that judges every
 * address a name resolves to when the socket connects (upstream-address.ts), and no redirect ever followed (this
 * client has no notion of one). Its answer is a WHATWG Response, as `fetch` would give, so the pipeline reads it
 * the same way. Why not fetch with an undici dispatcher, whose `connect.lookup` does the same: Node's built-in
 * fetch takes no lookup, and undici's Agent with its HTTP parser would add about 250 KB to each Lambda bundle
 * (the budget is 400 KB; bench/lambda-bundles.ts).
 */
export function requestUpstream(target: string, init: UpstreamRequestInit): Promise<Response> {
  const url = new URL(target);
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
    signal: init.signal,
  };
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? httpsRequest : httpRequest)(url, options, (incoming) => {
      try {
        resolve(toResponse(incoming, init.signal));
      } catch (error) {
        incoming.destroy();
        reject(error);
      }
    });
    outgoing.on('error', reject);
    outgoing.end(init.method === 'GET' ? undefined : init.body);
  });
}

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

/** Statuses whose answers have no body, which the Response constructor refuses one for. */
const nullBodyStatuses = new Set([204, 205, 304]);

function toResponse(incoming: IncomingMessage, signal: AbortSignal): Response {
  const status = incoming.statusCode ?? 0;
  if (status < 200 || status > 599) throw new Error(`the upstream answered with status ${status}`);
  const headers = new Headers();
  for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
    headers.append(incoming.rawHeaders[index] as string, incoming.rawHeaders[index + 1] as string);
  }
  // An abort after the headers ends the body with the abort's reason, as fetch does, so a reader can tell a
  // time-out (or a client that left) from a broken connection.
  const onAbort = () =>
    incoming.destroy(Object.assign(new Error('the upstream call was aborted'), { cause: signal.reason }));
  signal.addEventListener('abort', onAbort, { once: true });
  incoming.once('close', () => signal.removeEventListener('abort', onAbort));
  if (nullBodyStatuses.has(status)) {
    incoming.resume();
    return new Response(null, { status, statusText: incoming.statusMessage, headers });
  }
  const body = Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
  return new Response(body, { status, statusText: incoming.statusMessage, headers });
}
