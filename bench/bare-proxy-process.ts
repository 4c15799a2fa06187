import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerParent, tellParentReady } from './child-process.ts';

/**
 * The floor under any gateway on the local host: Node's own HTTP server and client, nothing else. It reads the
 * body, parses it as JSON (as every gateway must to route), sends it to the upstream over a keep-alive agent and
 * relays the answer chunk by chunk as it arrives. No key, no allowance, no record, no log line: what this costs
 * per request is what Node's HTTP and the kernel's loopback cost, and no gateway written on them can cost less
 * (bench/node-http-floor.ts measures it beside this gateway).
 */
const upstreamUrl = process.env.BENCH_UPSTREAM_URL;
if (!upstreamUrl) throw new Error('BENCH_UPSTREAM_URL is not set');
const upstream = new URL(upstreamUrl);
const agent = new Agent({ keepAlive: true });

const server = createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const body = Buffer.concat(chunks);
    const parsed = JSON.parse(body.toString('utf8')) as { model?: unknown };
    if (typeof parsed.model !== 'string') {
      outgoing.writeHead(400).end();
      return;
    }
    const upstreamRequest = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.byteLength, authorization: 'Bearer x' },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? '' });
        answer.on('data', (chunk: Buffer) => outgoing.write(chunk));
        answer.on('end', () => outgoing.end());
      },
    );
    upstreamRequest.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  answerParent({});
  tellParentReady({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
