import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.ts';
import { type ConnectionInput, type MemberPolicy, startTestGateway, type TestGateway } from './test-gateway.ts';

/** A connection of the fixture: its base URL is a path under the fake upstream unless it names one elsewhere. */
export type FixtureConnection = Omit<ConnectionInput, 'baseUrl'> & {
  /** The base URL's path on the fake upstream; `/v1` when neither this nor `baseUrl` is given. */
  path?: string;
  /** A base URL away from the fake upstream, such as one that cannot be reached. */
  baseUrl?: string;
};

/**
 * One connection per upstream wire, each serving one model of provider `acme` on the fake upstream: `acme/acme-1`
 * (chat, at `/v1`), `acme/acme-r` (Responses), `acme/acme-m` (messages), `acme/acme-g` (generate-content).
 */
export const acmeOnEveryWire: readonly FixtureConnection[] = [
  { provider: 'acme', wire: 'openai-chat', models: ['acme-1'] },
  { provider: 'acme', wire: 'openai-responses', models: ['acme-r'], path: '/responses-route/v1' },
  { provider: 'acme', wire: 'anthropic-messages', models: ['acme-m'], path: '/messages-route/v1' },
  { provider: 'acme', wire: 'gemini', models: ['acme-g'], path: '/gemini-route/v1beta' },
];

/** The alpha family's two upstream routes: a chat-style connection (K3) and a messages-style one (K2.7). */
export const alphaRoutes: readonly FixtureConnection[] = [
  { provider: 'alpha', wire: 'openai-chat', upstream: 'alpha', path: '/alpha-chat/v1' },
  { provider: 'alpha', wire: 'anthropic-messages', upstream: 'alpha', path: '/alpha-messages/v1' },
];

export interface GatewayFixtureOptions {
  /** Settings of the gateway, as the environment would give them. */
  environment?: Record<string, string>;
  connections?: readonly FixtureConnection[];
  /** A member of the team with one key, created once for the file: `fixture.member`. */
  member?: MemberPolicy;
}

export interface GatewayFixture {
  /** The real local host on a loopback port, with a fresh data folder. */
  readonly gateway: TestGateway;
  /** The fake provider every connection points at; its recorded requests are cleared before each test. */
  readonly upstream: FakeUpstream;
  /** The ids of `connections`, in their order. */
  readonly connectionIds: readonly string[];
  readonly member: { memberId: string; keyId: string; key: string };
}

/**
 * A gateway, a fake upstream and a team for the tests of one file: both servers start before the first test, with
 * the connections and the member the file asks for, the upstream forgets what it recorded before each test, and
 * both stop after the last. Read its parts inside tests and hooks, once the servers are up.
 */
export function useGatewayFixture(options: GatewayFixtureOptions = {}): GatewayFixture {
  let started: (Omit<GatewayFixture, 'member'> & { member?: GatewayFixture['member'] }) | undefined;
  beforeAll(async () => {
    const upstream = await startFakeUpstream();
    const gateway = await startTestGateway(options.environment ? { environment: options.environment } : {});
    started = { gateway, upstream, connectionIds: [] };
    const connectionIds: string[] = [];
    for (const { path, baseUrl, ...connection } of options.connections ?? []) {
      connectionIds.push(
        await gateway.admin.createConnection({ ...connection, baseUrl: baseUrl ?? `${upstream.url}${path ?? '/v1'}` }),
      );
    }
    const member = options.member ? await gateway.admin.createMemberWithKey(options.member) : undefined;
    started = { gateway, upstream, connectionIds, ...(member ? { member } : {}) };
  });
  afterAll(async () => {
    await started?.gateway.close();
    await started?.upstream.close();
  });
  beforeEach(() => started?.upstream.reset());
  const running = () => {
    if (!started) throw new Error('the gateway fixture is read before its servers started');
    return started;
  };
  return {
    get gateway() {
      return running().gateway;
    },
    get upstream() {
      return running().upstream;
    },
    get connectionIds() {
      return running().connectionIds;
    },
    get member() {
      const { member } = running();
      if (!member) throw new Error('this file asked the gateway fixture for no member');
      return member;
    },
  };
}
