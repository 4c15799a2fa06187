import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the admin API, for the CLI's own unit tests only: it records what the CLI sent and answers with
 * contract-shaped bodies. The real gateway is exercised by the end-to-end tests.
 */

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON, or `undefined` when the request had no body. */
  readonly body: unknown;
}

export interface StubAnswer {
  readonly status: number;
  /** A string is sent as is (to imitate a proxy's HTML page); anything else as JSON. */
  readonly body: unknown;
}

export interface StubAdminServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export const createdAt = '2026-01-02T03:04:05.000Z';

export const memberFixture = {
  id: 'mem_1',
  name: 'alice',
  role: 'member',
  status: 'active',
  policy: { dailyTokens: 100000, rpm: 60, providers: ['alpha'] },
  createdAt,
};

export const keyFixture = {
  id: 'key_1',
  memberId: 'mem_1',
  name: 'laptop',
  state: 'active',
  expiresAt: null,
  policy: { maxOutput: 4096 },
  createdAt,
  keyPrefix: 'sk-gw-abcd',
  rotatedAt: null,
};

export const issuedSecret = 'sk-gw-abcd-issued-secret-value';

export const connectionFixture = {
  id: 'con_1',
  provider: 'alpha',
  wire: 'openai-chat',
  baseUrl: 'https://api.example.com/v1',
  models: ['alpha-1', 'alpha-2'],
  modelLimits: [{ id: 'alpha-1', contextWindow: 200_000, maxOutput: 8_192, inputModalities: ['text', 'image'] }],
  upstream: 'alpha',
  enabled: true,
  createdAt,
};

/** A connection test whose model list answered and whose generation was refused. */
export const connectionTestFixture = {
  connection: { id: 'con_1', provider: 'alpha', wire: 'openai-chat', baseUrl: 'https://api.example.com/v1' },
  ok: false,
  probes: [
    {
      call: 'model-list',
      method: 'GET',
      url: 'https://api.example.com/v1/models',
      ok: true,
      status: 200,
      latencyMs: 42,
      models: { count: 7, ids: ['alpha-1', 'alpha-2', 'm3', 'm4', 'm5', 'm6', 'm7'], more: false },
    },
    {
      call: 'generation',
      method: 'POST',
      url: 'https://api.example.com/v1/chat/completions',
      model: 'alpha-1',
      ok: false,
      status: 401,
      latencyMs: 7,
      failure: { code: 'upstream_status', reason: 'The upstream refused the credential (401): check the API key.' },
    },
  ],
  notListedUpstream: ['alpha-3'],
};

/** The answers of the admin API contract, keyed on method and path. */
export function contractAnswer(request: RecordedRequest): StubAnswer {
  const route = `${request.method} ${request.path.replace(/\/admin\/v1\/(\w+)\/[^/]+\//, '/admin/v1/$1/{id}/')}`;
  switch (route) {
    case 'POST /admin/v1/members':
      return { status: 201, body: { member: memberFixture } };
    case 'GET /admin/v1/members':
      return { status: 200, body: { members: [memberFixture, { ...memberFixture, id: 'mem_2', name: 'bob' }] } };
    case 'POST /admin/v1/members/{id}/disable':
      return { status: 200, body: { member: { ...memberFixture, status: 'disabled' } } };
    case 'POST /admin/v1/members/{id}/enable':
      return { status: 200, body: { member: memberFixture } };
    case 'POST /admin/v1/members/{id}/suspend':
      return { status: 200, body: { member: { ...memberFixture, status: 'suspended' } } };
    case 'POST /admin/v1/keys':
      return { status: 201, body: { ...keyFixture, key: issuedSecret } };
    case 'GET /admin/v1/keys':
      return { status: 200, body: { keys: [keyFixture] } };
    case 'POST /admin/v1/keys/{id}/revoke':
      return { status: 200, body: { key: { ...keyFixture, state: 'revoked' } } };
    case 'POST /admin/v1/keys/{id}/rotate':
      return { status: 200, body: { ...keyFixture, key: `${issuedSecret}-rotated`, rotatedAt: createdAt } };
    case 'POST /admin/v1/connections':
      return { status: 201, body: { connection: connectionFixture } };
    case 'GET /admin/v1/connections':
      return { status: 200, body: { connections: [connectionFixture] } };
    case 'POST /admin/v1/connections/{id}/enable':
      return { status: 200, body: { connection: connectionFixture } };
    case 'POST /admin/v1/connections/{id}/test':
      return {
        status: 200,
        body: { ...connectionTestFixture, ok: true, probes: connectionTestFixture.probes.slice(0, 1) },
      };
    case 'POST /admin/v1/connections/{id}/disable':
      return { status: 200, body: { connection: { ...connectionFixture, enabled: false } } };
    default:
      return { status: 404, body: { error: { message: `no route ${route}`, type: 'not_found', code: 'no_route' } } };
  }
}

export async function startStubAdminServer(
  answer: (request: RecordedRequest) => StubAnswer = contractAnswer,
): Promise<StubAdminServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(Buffer.from(chunk));
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(incoming.url ?? '/', 'http://stub');
    const request: RecordedRequest = {
      method: incoming.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: incoming.headers,
      body: text === '' ? undefined : JSON.parse(text),
    };
    requests.push(request);
    const { status, body } = answer(request);
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    outgoing.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json' });
    outgoing.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
