import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { runInProcess } from './cli-harness.ts';

/**
 * The CLI's paged lists, audit export, team settings and policy flags against the running local gateway, over
 * HTTP: what the admin API can do, the CLI can do with the same names.
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'acme', wire: 'openai-chat', models: ['acme-1'] },
    { provider: 'bravo', wire: 'openai-chat', models: ['bravo-1'] },
  ],
});
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

const cli = (argv: string[], json = true) =>
  runInProcess(json ? [...argv, '--json'] : argv, {
    env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
    fetch: globalThis.fetch,
  });

async function jsonOf(argv: string[]) {
  const run = await cli(argv);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

describe('the admin CLI’s lists, audit export, settings and policy flags', () => {
  it('pages members by --limit and --cursor and filters them by --name and --state', async () => {
    const ids: string[] = [];
    for (const name of ['Paging Ada', 'paging Bo', 'PAGING Cy', 'Other Dee']) {
      ids.push((await jsonOf(['member', 'create', '--name', name])).member.id);
    }
    await jsonOf(['member', 'disable', ids[1] ?? '']);

    const first = await jsonOf(['member', 'list', '--name', 'paging', '--limit', '2']);
    expect(first.members).toHaveLength(2);
    expect(first.nextCursor).toMatch(/^[0-9a-f]+$/);
    const second = await jsonOf(['member', 'list', '--name', 'paging', '--limit', '2', '--cursor', first.nextCursor]);
    const names = [...first.members, ...second.members].map((member: { name: string }) => member.name);
    expect(names.sort()).toEqual(['PAGING Cy', 'Paging Ada', 'paging Bo']);
    expect(second.nextCursor).toBeNull();

    const disabled = await jsonOf(['member', 'list', '--name', 'paging', '--state', 'disabled']);
    expect(disabled.members.map((member: { id: string }) => member.id)).toEqual([ids[1]]);

    const text = await cli(['member', 'list', '--name', 'paging', '--limit', '1'], false);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/more: --cursor [0-9a-f]+\n$/);
    expect((await cli(['member', 'list', '--name', 'nobody-is-called-this'], false)).stdout).toBe('no members\n');

    // Refused on the command line, before anything is sent.
    const badState = await cli(['member', 'list', '--state', 'gone']);
    expect(badState.code).toBe(2);
    expect(badState.stderr).toContain('--state expects one of active, disabled, suspended');
    expect((await cli(['member', 'list', '--limit', '201'])).code).toBe(2);
    const badCursor = await cli(['member', 'list', '--cursor', 'zz']);
    expect(badCursor.code).toBe(1);
    expect(badCursor.stderr).toContain('invalid_cursor');
  });

  it('pages and filters keys and connections', async () => {
    const { memberId } = await gateway.admin.createMemberWithKey();
    const laptop = await jsonOf(['key', 'create', '--member', memberId, '--name', 'Laptop one']);
    const other = await jsonOf(['key', 'create', '--member', memberId, '--name', 'laptop two']);
    await jsonOf(['key', 'revoke', other.id]);

    const named = await jsonOf(['key', 'list', '--member', memberId, '--name', 'LAPTOP', '--limit', '1']);
    expect(named.keys.map((key: { id: string }) => key.id)).toEqual([laptop.id]);
    const rest = await jsonOf(['key', 'list', '--member', memberId, '--name', 'laptop', '--cursor', named.nextCursor]);
    expect(rest.keys.map((key: { id: string }) => key.id)).toEqual([other.id]);
    expect(rest.nextCursor).toBeNull();
    const revoked = await jsonOf(['key', 'list', '--member', memberId, '--state', 'revoked']);
    expect(revoked.keys.map((key: { id: string }) => key.id)).toEqual([other.id]);

    const [acmeId, bravoId] = fixture.connectionIds;
    await jsonOf(['connection', 'disable', bravoId ?? '']);
    const enabled = await jsonOf(['connection', 'list', '--state', 'enabled']);
    expect(enabled.connections.map((connection: { id: string }) => connection.id)).toEqual([acmeId]);
    const byName = await jsonOf(['connection', 'list', '--name', 'BRAV']);
    expect(byName.connections.map((connection: { id: string }) => connection.id)).toEqual([bravoId]);
    const paged = await jsonOf(['connection', 'list', '--limit', '1']);
    expect(paged.connections).toHaveLength(1);
    expect(paged.nextCursor).not.toBeNull();
    await jsonOf(['connection', 'enable', bravoId ?? '']);
  });

  it('sets every policy field of a member and a key, as the API takes them', async () => {
    const { memberId, keyId } = await gateway.admin.createMemberWithKey({ dailyTokens: 1000 });
    const member = await jsonOf([
      'member',
      'update',
      memberId,
      '--version',
      '1',
      '--role',
      'admin',
      '--daily-tokens',
      '5000',
      '--rpm',
      '30',
      '--concurrency',
      '3',
      '--max-output',
      '512',
      '--providers',
      'acme,bravo',
      '--models',
      'acme/acme-1,bravo/bravo-1',
    ]);
    expect(member.member).toMatchObject({
      role: 'admin',
      version: 2,
      policy: {
        dailyTokens: 5000,
        rpm: 30,
        concurrency: 3,
        maxOutput: 512,
        providers: ['acme', 'bravo'],
        models: ['acme/acme-1', 'bravo/bravo-1'],
      },
    });

    const key = await jsonOf([
      'key',
      'update',
      keyId,
      '--version',
      '1',
      '--rpm',
      '5',
      '--concurrency',
      '1',
      '--max-output',
      '256',
      '--providers',
      'acme',
      '--models',
      'acme/acme-1',
      '--expires',
      '2099-01-02',
    ]);
    expect(key.key).toEqual(
      expect.objectContaining({
        version: 2,
        expiresAt: '2099-01-02T00:00:00.000Z',
        policy: { rpm: 5, concurrency: 1, maxOutput: 256, providers: ['acme'], models: ['acme/acme-1'] },
      }),
    );
    const never = await jsonOf(['key', 'update', keyId, '--version', '2', '--expires', 'never']);
    expect(never.key).toMatchObject({ version: 3, expiresAt: null, policy: { rpm: 5 } });
    const badExpiry = await cli(['key', 'update', keyId, '--version', '3', '--expires', 'tomorrow']);
    expect(badExpiry.code).toBe(2);
    // A key has no daily tokens of its own: the flag does not exist for it.
    expect((await cli(['key', 'update', keyId, '--version', '3', '--daily-tokens', '5'])).code).toBe(2);

    const text = await cli(['member', 'get', memberId], false);
    expect(text.stdout).toContain('max-output=512');
  });

  it('shows and updates the team settings at the version read, and refuses a stale version', async () => {
    const before = await jsonOf(['settings', 'get']);
    const version = String(before.settings.version);
    const updated = await jsonOf([
      'settings',
      'update',
      '--version',
      version,
      '--daily-tokens',
      '20000',
      '--rpm',
      '12',
      '--models',
      'acme/acme-1',
    ]);
    expect(updated.settings).toEqual({
      version: before.settings.version + 1,
      defaultPolicy: { dailyTokens: 20000, rpm: 12, models: ['acme/acme-1'] },
    });
    const shown = await cli(['settings', 'get'], false);
    expect(shown.stdout).toBe(
      `version ${before.settings.version + 1}\ndefault policy daily-tokens=20000 rpm=12 models=acme/acme-1\n`,
    );
    const stale = await cli(['settings', 'update', '--version', version, '--rpm', '1']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('version_conflict');
    const cleared = await jsonOf(['settings', 'update', '--version', String(before.settings.version + 1)]);
    expect(cleared.settings.defaultPolicy).toEqual({});
  });

  it('lists the audit log with filters and exports it as CSV, formula-safe, newest first', async () => {
    const memberId = (await jsonOf(['member', 'create', '--name', '=HYPERLINK("x")'])).member.id;
    await jsonOf(['member', 'update', memberId, '--version', '1', '--rpm', '9']);
    await jsonOf(['member', 'suspend', memberId]);

    const listed = await jsonOf(['audit', 'list', '--target', memberId]);
    expect(listed.entries.map((entry: { action: string }) => entry.action)).toEqual([
      'member.suspend',
      'member.update',
      'member.create',
    ]);
    const updates = await jsonOf(['audit', 'list', '--target', memberId, '--action', 'member.update']);
    expect(updates.entries).toHaveLength(1);

    const csv = await cli(['audit', 'list', '--target', memberId, '--csv'], false);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,actor_member_id,actor_key_id,via,action,target_type,target_id,before,after');
    expect(lines.slice(1).map((line) => line.split(',')[4])).toEqual([
      'member.suspend',
      'member.update',
      'member.create',
    ]);
    // The name travels inside the JSON of `after`; the CSV writer keeps a cell from starting a formula.
    expect(csv.stdout).toContain('HYPERLINK');
    expect(lines.every((line) => line.split(',').every((cell) => !/^[=+@-]/.test(cell)))).toBe(true);
    // --json does not wrap an export: it is printed as the gateway wrote it.
    expect((await cli(['audit', 'list', '--target', memberId, '--csv'])).stdout).toBe(csv.stdout);
    const limited = await cli(['audit', 'list', '--target', memberId, '--csv', '--limit', '1'], false);
    expect(limited.stdout.trimEnd().split('\r\n')).toHaveLength(2);

    const withCursor = await cli(['audit', 'list', '--csv', '--cursor', 'ab'], false);
    expect(withCursor.code).toBe(2);
    expect((await cli(['audit', 'list', '--limit', '500'])).code).toBe(2);
  });
});
