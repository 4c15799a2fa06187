import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver took, as it arrived: the raw body is what the signature covers. */
export interface ReceivedAlert {
  headers: IncomingHttpHeaders;
  rawBody: string;
  json: Record<string, unknown>;
}

/**
 * How the receiver answers the next POST: `accept` (200), `fail` (503), `reset` (the connection is destroyed before
 * any answer, as when the receiver is down), `hang` (no answer until `release`).
 */
export type ReceiverMode = 'accept' | 'fail' | 'reset' | 'hang';

export interface WebhookReceiver {
  url: string;
  /** Accepted deliveries only, in arrival order. */
  readonly accepted: ReceivedAlert[];
  /** Every POST that arrived, whatever the answer. */
  readonly attempts: ReceivedAlert[];
  /** Answers from now on; `hang` holds every request until `release`. */
  setMode(mode: ReceiverMode): void;
  /** Requests held by `hang` that have not been answered. */
  readonly held: number;
  /** Answers the held requests with 200 (they count as accepted) and returns to `accept`. */
  release(): void;
  /** Resolves once `count` deliveries were accepted; rejects after `timeoutMs`. */
  waitForAccepted(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP server on a loopback port, standing in for a team's alert webhook. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const accepted: ReceivedAlert[] = [];
  const attempts: ReceivedAlert[] = [];
  const heldResponses: { response: ServerResponse; alert: ReceivedAlert }[] = [];
  const waiters = new Set<() => void>();
  let mode: ReceiverMode = 'accept';
  const notify = () => {
    for (const waiter of waiters) waiter();
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const alert: ReceivedAlert = {
        headers: request.headers,
        rawBody,
        json: JSON.parse(rawBody) as Record<string, unknown>,
      };
      attempts.push(alert);
      switch (mode) {
        case 'accept':
          accepted.push(alert);
          response.end('ok');
          notify();
          return;
        case 'fail':
          response.writeHead(503).end('down for maintenance');
          return;
        case 'reset':
          request.socket.destroy();
          return;
        case 'hang':
          heldResponses.push({ response, alert });
          return;
      }
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks/gateway`,
    accepted,
    attempts,
    setMode(next) {
      mode = next;
    },
    get held() {
      return heldResponses.length;
    },
    release() {
      mode = 'accept';
      for (const { response, alert } of heldResponses.splice(0)) {
        accepted.push(alert);
        response.end('ok');
      }
      notify();
    },
    waitForAccepted(count, timeoutMs = 10_000) {
      if (accepted.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (accepted.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver accepted ${accepted.length} deliveries, not ${count}, in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close() {
      for (const { response } of heldResponses.splice(0)) response.destroy();
      server.closeAllConnections();
      return new Promise((closed) => server.close(() => closed()));
    },
  };
}
