import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayHost, startGatewayHost } from '../../infra/local/gateway-host.ts';
import { generateKeySecret } from '../../shared/auth/key-secret.ts';
import { heldClock, pinnedInstant } from './pinned-clock.ts';
import { gatewayEngineOfThisRun } from './test-store.ts';

export interface TestGateway {
  url: string;
  /** The gateway's data folder: its store and its secret file. */
  dataDir: string;
  /** The OpenAI-style base URL, `<url>/v1`. */
  baseURL: string;
  adminKey: string;
  host: GatewayHost;
  admin: AdminClient;
  close(): Promise<void>;
}

/**
 * Starts the real local host on a free loopback port with a fresh data folder, on this run's store engine
 * (`GATEWAY_TEST_STORE`, test-store.ts; SQLite by default). In a run with a pinned instant (pinned-clock.ts) the
 * gateway's calendar clock is held there.
 */
export async function startTestGateway(
  options: { environment?: Record<string, string>; dataDir?: string; adminKey?: string } = {},
): Promise<TestGateway> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'gateway-test-')));
  const adminKey = options.adminKey ?? generateKeySecret('gw');
  const host = await startGatewayHost({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    adminKey,
    environment: { GATEWAY_CACHE_TTL_MS: '0', GATEWAY_STORE: gatewayEngineOfThisRun(), ...options.environment },
    reaperIntervalMs: 0,
  });
  const instant = pinnedInstant();
  if (instant !== undefined) host.services.now = heldClock(instant);
  return {
    url: host.url,
    dataDir,
    baseURL: `${host.url}/v1`,
    adminKey,
    host,
    admin: new AdminClient(host.url, adminKey),
    async close() {
      await host.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Sends exactly this JSON body to a path of the gateway with a member's key, so a test can price what it sent. */
export function postJson(gateway: TestGateway, key: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

export interface MemberPolicy {
  dailyTokens?: number;
  rpm?: number;
  concurrency?: number;
  maxOutput?: number;
  providers?: string[];
  models?: string[];
}

export interface ConnectionInput {
  provider: string;
  wire: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini' | 'bedrock';
  /** Optional for Bedrock only, whose base URL defaults to its region's runtime endpoint. */
  baseUrl?: string;
  /** Bedrock's AWS region. */
  region?: string;
  /** Model ids, or ids with the limits (and the input modalities) the connection declares for them. */
  models?: (string | { id: string; contextWindow?: number; maxOutput?: number; inputModalities?: string[] })[];
  upstream?: string;
  privateNetwork?: boolean;
  /** `null`: no credential at all (a Bedrock connection signing as the host). */
  apiKey?: string | null;
}

/** Drives the real admin API over HTTP, as the CLI does. */
export class AdminClient {
  constructor(
    readonly url: string,
    readonly adminKey: string,
    /** Sent with every call, such as the origin secret of a gateway that checks one. */
    readonly extraHeaders: Readonly<Record<string, string>> = {},
  ) {}

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}/admin/v1${path}`, {
      method,
      headers: { ...this.extraHeaders, authorization: `Bearer ${this.adminKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`admin ${method} ${path} failed with ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  async createMember(policy: MemberPolicy = {}, role: 'member' | 'admin' = 'member'): Promise<string> {
    const result = await this.call<{ member: { id: string } }>('POST', '/members', {
      name: 'test member',
      role,
      policy,
    });
    return result.member.id;
  }

  async createKey(
    memberId: string,
    options: { policy?: Omit<MemberPolicy, 'dailyTokens'>; expiresAt?: string } = {},
  ): Promise<{ id: string; key: string }> {
    return this.call('POST', '/keys', { memberId, name: 'test key', policy: options.policy ?? {}, ...options });
  }

  /** A member with one key, the usual start of a test. */
  async createMemberWithKey(
    policy: MemberPolicy = {},
    keyPolicy: Omit<MemberPolicy, 'dailyTokens'> = {},
  ): Promise<{ memberId: string; keyId: string; key: string }> {
    const memberId = await this.createMember(policy);
    const { id, key } = await this.createKey(memberId, { policy: keyPolicy });
    return { memberId, keyId: id, key };
  }

  async createConnection(input: ConnectionInput): Promise<string> {
    const { apiKey = 'upstream-secret-credential', ...rest } = input;
    const result = await this.call<{ connection: { id: string } }>('POST', '/connections', {
      ...rest,
      ...(apiKey === null ? {} : { apiKey }),
    });
    return result.connection.id;
  }
}
