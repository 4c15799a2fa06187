import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertEvent } from '../../shared/alerts/alert-event.ts';
import { eventBridgeSink } from '../../shared/alerts/eventbridge-sink.ts';

/**
 * The EventBridge sink through the real AWS SDK client, against a stand-in that answers PutEvents as EventBridge does
 * (AWS JSON 1.1, target `AWSEvents.PutEvents`). No AWS is reachable here; the stand-in checks what the SDK sent.
 */
let server: Server;
let endpoint: string;
const received: { target: string | undefined; body: { Entries: Record<string, string>[] } }[] = [];
let answer: { status: number; body: unknown } = {
  status: 200,
  body: { FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] },
};

beforeAll(async () => {
  process.env['AWS_ACCESS_KEY_ID'] = 'AKIDEXAMPLEALERTS';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'test-secret-access-key';
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = request.headers['x-amz-target'];
      received.push({
        target: Array.isArray(target) ? target[0] : target,
        body: JSON.parse(Buffer.concat(chunks).toString()),
      });
      response
        .writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1' })
        .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

const event: AlertEvent = {
  id: 'allowance.threshold:mem_1:0.8:2026-11-21',
  type: 'allowance.threshold',
  subject: { memberId: 'mem_1', memberName: 'Ada' },
  threshold: 0.8,
  used: 800,
  allowance: 1000,
  day: '2026-11-21',
  at: '2026-11-21T10:00:00.000Z',
};

describe('the EventBridge sink', () => {
  it('puts the alert on the bus with the stage`s source and the alert`s type', async () => {
    const sink = await eventBridgeSink({
      busName: 'default',
      source: 'model-gateway.dev',
      region: 'eu-west-1',
      endpoint,
    });
    await sink.send(event, new AbortController().signal);
    const [put] = received;
    expect(put?.target).toBe('AWSEvents.PutEvents');
    expect(put?.body.Entries).toEqual([
      {
        EventBusName: 'default',
        Source: 'model-gateway.dev',
        DetailType: 'allowance.threshold',
        Detail: JSON.stringify(event),
      },
    ]);
  });

  it('fails when EventBridge refuses the entry, so the outbox retries it', async () => {
    answer = {
      status: 200,
      body: { FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }] },
    };
    const sink = await eventBridgeSink({
      busName: 'default',
      source: 'model-gateway.dev',
      region: 'eu-west-1',
      endpoint,
    });
    await expect(sink.send(event, new AbortController().signal)).rejects.toThrow(/InternalFailure/);
  });
});
