import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../cli/cli-harness.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/** The CLI's update and audit verbs against the running gateway, over HTTP. */
const fixture = useGatewayFixture({ connections: [{ provider: 'acme', wire: 'openai-chat', models: ['acme-1'] }] });
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

const cli = (argv: string[], json = true, stdin?: string) =>
  runInProcess(json ? [...argv, '--json'] : argv, {
    env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
    fetch: globalThis.fetch,
    ...(stdin === undefined ? {} : { stdin }),
  });

describe('the admin CLI’s update and audit verbs', () => {
  it('gets a member, updates it at the version read, refuses a stale version, and lists the audit log', async () => {
    const { memberId, keyId } = await gateway.admin.createMemberWithKey({ dailyTokens: 1000 });
    const got = await cli(['member', 'get', memberId]);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout).member).toMatchObject({ id: memberId, version: 1, keyCount: 1 });
    const text = await cli(['member', 'get', memberId], false);
    expect(text.stdout).toContain('version 1');

    const updated = await cli(['member', 'update', memberId, '--version', '1', '--name', 'Eve', '--rpm', '7']);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout).member).toMatchObject({ name: 'Eve', policy: { rpm: 7 }, version: 2 });
    const stale = await cli(['member', 'update', memberId, '--version', '1', '--name', 'Lost']);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toContain('version_conflict');

    const key = await cli(['key', 'update', keyId, '--version', '1', '--name', 'laptop', '--expires', 'never']);
    expect(JSON.parse(key.stdout).key).toMatchObject({ name: 'laptop', expiresAt: null, version: 2 });
    expect((await cli(['member', 'update', memberId])).code).not.toBe(0);

    const audit = await cli(['audit', 'list', '--target', memberId]);
    expect(JSON.parse(audit.stdout).entries.map((entry: { action: string }) => entry.action)).toEqual([
      'member.update',
      'member.create',
    ]);
    const page = await cli(['audit', 'list', '--limit', '1'], false);
    expect(page.stdout).toContain('more: --cursor');
    const settings = await cli(['settings', 'get']);
    expect(JSON.parse(settings.stdout)).toEqual({ settings: { version: 1, defaultPolicy: {} } });
  });

  it('gives a connection a new credential from standard input, never echoed, and the upstream receives it', async () => {
    const [connectionId] = fixture.connectionIds;
    const { key } = await gateway.admin.createMemberWithKey();
    const credential = 'rotated-credential-CANARY-91c2';
    const updated = await cli(
      ['connection', 'update', connectionId ?? '', '--version', '1', '--api-key-stdin'],
      true,
      `${credential}\n`,
    );
    expect(updated.code).toBe(0);
    expect(updated.stdout + updated.stderr).not.toContain(credential);
    expect(JSON.parse(updated.stdout).connection).toMatchObject({ id: connectionId, version: 2 });
    await openaiClient(gateway, key).chat.completions.create({
      model: 'acme/acme-1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(fixture.upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${credential}`);
  });
});
