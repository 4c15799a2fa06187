import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { acmeOnEveryWire } from '../support/gateway-fixture.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { anthropicClient, googleClient, openaiClient } from '../support/sdk-clients.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

/**
 * Issue 23 items 1-3 and 6: the gateway's real OpenTelemetry SDK exporting over OTLP/HTTP to a receiver in this
 * process, with official SDKs as clients. Spans in the GenAI semantic conventions for each wire, streamed and not,
 * refused and failed; the GenAI metrics and the gateway's own; W3C trace context; and never a prompt, an answer, a
 * key or a credential in any exported byte.
 */
let receiver: OtlpReceiver;
let upstream: FakeUpstream;
let gateway: TestGateway;
let member: { memberId: string; keyId: string; key: string };
const credential = 'upstream-secret-credential';

async function connectEveryWire(target: TestGateway): Promise<void> {
  for (const { path, ...connection } of acmeOnEveryWire) {
    await target.admin.createConnection({ ...connection, baseUrl: `${upstream.url}${path ?? '/v1'}` });
  }
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startFakeUpstream();
  gateway = await startTestGateway({
    environment: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-tenant=team%20a',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    },
  });
  await connectEveryWire(gateway);
  member = await gateway.admin.createMemberWithKey({});
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await receiver?.close();
});

beforeEach(() => {
  upstream.reset();
  receiver.clear();
});

/** Settlement ends the spans after the answer: wait for it, then have the SDK export what it holds. */
async function exported(target: TestGateway = gateway): Promise<void> {
  for (let round = 0; round < 3; round++) await Promise.allSettled([...target.host.services.background]);
  await target.host.services.telemetry?.flush();
}

function pair(name: string): { server: ReceivedSpan; client: ReceivedSpan } {
  const server = receiver.spans().find((span) => span.name === name && span.kind === 2);
  if (!server) throw new Error(`no server span "${name}" among ${receiver.spans().map((span) => span.name)}`);
  const client = receiver.spans().find((span) => span.parentSpanId === server.spanId && span.kind === 3);
  if (!client) throw new Error(`no client span under "${name}"`);
  return { server, client };
}

const cases = [
  {
    wire: 'chat completions',
    name: 'chat acme/acme-1',
    operation: 'chat',
    model: 'acme/acme-1',
    call: async (stream: boolean) => {
      const client = openaiClient(gateway, member.key);
      const request = { model: 'acme/acme-1', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 50 };
      if (!stream) return void (await client.chat.completions.create(request));
      const chunks = await client.chat.completions.create({
        ...request,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of chunks);
    },
  },
  {
    wire: 'responses',
    name: 'chat acme/acme-r',
    operation: 'chat',
    model: 'acme/acme-r',
    call: async (stream: boolean) => {
      const client = openaiClient(gateway, member.key);
      const request = { model: 'acme/acme-r', input: 'hi', max_output_tokens: 50 };
      if (!stream) return void (await client.responses.create(request));
      for await (const _ of await client.responses.create({ ...request, stream: true }));
    },
  },
  {
    wire: 'messages',
    name: 'chat acme/acme-m',
    operation: 'chat',
    model: 'acme/acme-m',
    call: async (stream: boolean) => {
      const client = anthropicClient(gateway, member.key);
      const request = { model: 'acme/acme-m', max_tokens: 50, messages: [{ role: 'user' as const, content: 'hi' }] };
      if (!stream) return void (await client.messages.create(request));
      for await (const _ of await client.messages.create({ ...request, stream: true }));
    },
  },
  {
    wire: 'generate content',
    name: 'generate_content acme/acme-g',
    operation: 'generate_content',
    model: 'acme/acme-g',
    call: async (stream: boolean) => {
      const client = googleClient(gateway, member.key);
      const request = { model: 'acme/acme-g', contents: 'hi', config: { maxOutputTokens: 50 } };
      if (!stream) return void (await client.models.generateContent(request));
      for await (const _ of await client.models.generateContentStream(request));
    },
  },
] as const;

describe.each(cases)('spans of $wire', ({ name, operation, model, call }) => {
  it.each([false, true])('streamed %s: a server span and a client span in the GenAI conventions', async (stream) => {
    await call(stream);
    await exported();
    const { server, client } = pair(name);
    expect(client.traceId).toBe(server.traceId);
    for (const span of [server, client]) {
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': operation,
        'gen_ai.provider.name': 'acme',
        'gen_ai.request.model': model,
        'gen_ai.request.max_tokens': 50,
        'gen_ai.usage.input_tokens': 17,
        'gen_ai.usage.output_tokens': 9,
      });
      expect(span.attributes['gen_ai.response.model']).toEqual(expect.any(String));
      expect(span.attributes['gen_ai.response.finish_reasons']).toEqual([expect.any(String)]);
      expect(span.attributes['error.type']).toBeUndefined();
      expect(span.resource).toMatchObject({ 'service.name': 'model-gateway', 'deployment.environment.name': 'test' });
    }
    expect(client.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': expect.any(Number) });
    expect(server.attributes).toMatchObject({
      'gateway.member.id': member.memberId,
      'gateway.key.id': member.keyId,
      'gateway.stream': stream,
      'gateway.accounting.source': 'measured',
      'gateway.charge.tokens': 26,
      'gateway.reservation.tokens': expect.any(Number),
      'http.response.status_code': 200,
    });
    // The collector's headers from OTEL_EXPORTER_OTLP_HEADERS go with every export.
    expect(receiver.exports.every((exportRequest) => exportRequest.headers['x-collector-tenant'] === 'team a')).toBe(
      true,
    );
  });
});

describe('refused and failed requests', () => {
  it('a refusal before dispatch ends its server span with the gateway code, and counts it', async () => {
    const poor = await gateway.admin.createMemberWithKey({ dailyTokens: 5 });
    await expect(
      openaiClient(gateway, poor.key).chat.completions.create({
        model: 'acme/acme-1',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toThrow(/429/);
    await exported();
    const refused = receiver
      .spans()
      .find((span) => span.attributes['gateway.refusal.code'] === 'token_reservation_limit');
    expect(refused).toMatchObject({ name: 'chat acme/acme-1', kind: 2, status: { code: 2 } });
    expect(refused?.attributes).toMatchObject({
      'error.type': 'token_reservation_limit',
      'http.response.status_code': 429,
    });
    expect(receiver.spans().filter((span) => span.parentSpanId === refused?.spanId)).toEqual([]);
    const refusals = receiver.metrics().find((metric) => metric.name === 'gateway.admission.refusals');
    expect(refusals?.points).toContainEqual(
      expect.objectContaining({ attributes: { 'gateway.refusal.code': 'token_reservation_limit' } }),
    );
  });

  it('an upstream failure sets error.type on both spans', async () => {
    upstream.nextResponse({ type: 'error', status: 500, message: 'overloaded' });
    await expect(
      openaiClient(gateway, member.key, { maxRetries: 0 }).chat.completions.create({
        model: 'acme/acme-1',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toThrow();
    await exported();
    const { server, client } = pair('chat acme/acme-1');
    for (const span of [server, client]) {
      expect(span.attributes['error.type']).toEqual(expect.any(String));
      expect(span.status.code).toBe(2);
    }
    expect(client.attributes['http.response.status_code']).toBe(500);
    // The duration of the failed operation carries its error.type; a completed one's carries none.
    const durations = receiver.metrics().find((metric) => metric.name === 'gen_ai.client.operation.duration');
    const errorTypes = durations?.points.map((point) => point.attributes['error.type']);
    expect(errorTypes).toContain(server.attributes['error.type']);
    expect(errorTypes).toContain(undefined);
  });
});

describe('trace context', () => {
  const parentTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parentSpanId = '00f067aa0ba902b7';

  it('continues a client`s traceparent and, by default, sends none upstream', async () => {
    await openaiClient(gateway, member.key).chat.completions.create(
      { model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { traceparent: `00-${parentTraceId}-${parentSpanId}-01` } },
    );
    await exported();
    const { server } = pair('chat acme/acme-1');
    expect(server.traceId).toBe(parentTraceId);
    expect(server.parentSpanId).toBe(parentSpanId);
    expect(upstream.requests.at(-1)?.headers['traceparent']).toBeUndefined();
  });

  it('sends the upstream call`s context on when GATEWAY_OTEL_PROPAGATE_UPSTREAM is true', async () => {
    const propagating = await startTestGateway({
      environment: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        GATEWAY_OTEL_PROPAGATE_UPSTREAM: 'true',
      },
    });
    try {
      await connectEveryWire(propagating);
      const someone = await propagating.admin.createMemberWithKey({});
      await openaiClient(propagating, someone.key).chat.completions.create(
        { model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { traceparent: `00-${parentTraceId}-${parentSpanId}-01` } },
      );
      await exported(propagating);
      const { client } = pair('chat acme/acme-1');
      expect(upstream.requests.at(-1)?.headers['traceparent']).toBe(`00-${parentTraceId}-${client.spanId}-01`);
    } finally {
      await propagating.close();
    }
  });
});

describe('metrics', () => {
  it('exports token usage, duration and time to first chunk in the GenAI conventions, and the gateway`s own', async () => {
    const stream = await openaiClient(gateway, member.key).chat.completions.create({
      model: 'acme/acme-1',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream);
    await exported();
    const metric = (name: string) => receiver.metrics().find((candidate) => candidate.name === name);
    const tokens = metric('gen_ai.client.token.usage');
    expect(tokens?.unit).toBe('{token}');
    expect(tokens?.points).toContainEqual(
      expect.objectContaining({
        attributes: expect.objectContaining({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'acme',
          'gen_ai.request.model': 'acme/acme-1',
          'gen_ai.token.type': 'input',
          'server.address': '127.0.0.1',
        }),
      }),
    );
    expect(tokens?.points.some((point) => point.attributes['gen_ai.token.type'] === 'output')).toBe(true);
    expect(metric('gen_ai.client.operation.duration')?.unit).toBe('s');
    expect(metric('gen_ai.client.operation.time_to_first_chunk')?.points.length).toBeGreaterThan(0);
    expect(metric('gateway.settlements')?.points).toContainEqual(
      expect.objectContaining({
        attributes: { 'gateway.accounting.source': 'measured', 'gateway.request.state': 'completed' },
      }),
    );
    // Everything admitted has settled: nothing is left reserved, under any attribute set (a reservation is released
    // under the set it was taken under, not one that a later-known upstream address changed).
    const outstanding = metric('gateway.reservations.outstanding');
    expect(outstanding?.points.length).toBeGreaterThan(0);
    expect(outstanding?.points.map((point) => point.value)).toEqual(outstanding?.points.map(() => 0));
    // Metrics carry no member, key or request ids.
    const everyAttribute = receiver
      .metrics()
      .flatMap((found) => found.points.flatMap((point) => Object.keys(point.attributes)));
    expect(everyAttribute.some((key) => key.startsWith('gateway.member') || key.startsWith('gateway.key'))).toBe(false);
  });
});

describe('never a prompt, an answer, a key or a credential', () => {
  it('scans every exported byte, JSON and protobuf, for canaries sent in every field', async () => {
    const canary = (field: string) => `CANARY-${field}-7f3a9`;
    upstream.setScenario(() => ({ type: 'answer', text: canary('answer') }));
    const protobuf = await startTestGateway({
      environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
    });
    try {
      await connectEveryWire(protobuf);
      const someone = await protobuf.admin.createMemberWithKey({});
      for (const [target, key] of [
        [gateway, member.key],
        [protobuf, someone.key],
      ] as const) {
        await openaiClient(target, key).chat.completions.create(
          {
            model: 'acme/acme-1',
            messages: [
              { role: 'system', content: canary('system') },
              { role: 'user', content: canary('prompt') },
            ],
            tools: [
              {
                type: 'function',
                function: { name: 'lookup', description: canary('tool'), parameters: { type: 'object' } },
              },
            ],
            user: canary('user'),
            metadata: { note: canary('metadata') },
          },
          { headers: { 'x-custom-header': canary('header') } },
        );
        for await (const _ of await anthropicClient(target, key).messages.create({
          model: 'acme/acme-m',
          max_tokens: 20,
          system: canary('system'),
          messages: [{ role: 'user', content: canary('prompt') }],
          stream: true,
        }));
        await exported(target);
      }
      const bytes = receiver.everyByte().toString('latin1');
      expect(receiver.exports.some((exportRequest) => exportRequest.contentType === 'application/x-protobuf')).toBe(
        true,
      );
      expect(bytes).toContain('chat acme/acme-1');
      expect(bytes).not.toMatch(/CANARY-/);
      for (const secret of [member.key, someone.key, credential, gateway.adminKey]) expect(bytes).not.toContain(secret);
    } finally {
      await protobuf.close();
    }
  });
});
