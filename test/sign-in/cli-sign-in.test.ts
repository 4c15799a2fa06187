import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../../cli/run-cli.ts';
import { sessionFilePath } from '../../cli/stored-session.ts';
import { CookieJar, follow } from '../support/sign-in-driver.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.ts';

/**
 * `npm run admin -- login` against the real provider: the CLI's loopback listener, the browser's trip through the
 * gateway and the provider (driven over HTTP by the opener the test gives the CLI), the one-time code exchanged
 * with the CLI's PKCE verifier, the session stored 0600, used by later commands, and ended by `logout`.
 */
let provider: TestIdentityProvider;
let gateway: TestGateway;
let configHome: string;

beforeAll(async () => {
  provider = await startTestIdentityProvider();
  gateway = await startTestGateway({
    environment: {
      GATEWAY_OIDC_ISSUER: provider.issuer,
      GATEWAY_OIDC_CLIENT_ID: provider.clientId,
      GATEWAY_OIDC_CLIENT_SECRET: provider.clientSecret,
      GATEWAY_OIDC_SCOPES: 'openid email profile groups',
      GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins',
      GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member',
    },
  });
  provider.registerGateway(`${gateway.url}/app/auth/callback`);
  provider.people.set('sub-ada', {
    email: 'ada@example.com',
    email_verified: true,
    name: 'Ada',
    groups: ['gateway-admins'],
  });
  configHome = await mkdtemp(join(tmpdir(), 'gateway-cli-config-'));
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await provider?.close();
  await rm(configHome, { recursive: true, force: true });
});

async function run(argv: string[], env: Record<string, string>, openUrl?: (url: string) => unknown) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([]),
    env,
    fetch: globalThis.fetch,
    ...(openUrl ? { openUrl } : {}),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

describe('the admin CLI signs in with the provider', () => {
  it('logs in through a browser, stores the session 0600, uses it for every command, and logs out', async () => {
    const env = { GATEWAY_URL: gateway.url, XDG_CONFIG_HOME: configHome };
    provider.signInAs('sub-ada');
    let opened: string | undefined;
    const login = await run(['login'], env, async (url) => {
      opened = url;
      // The browser: gateway → provider → gateway callback → the CLI's loopback address, which answers 200.
      const { last, hops } = await follow(url, new CookieJar());
      expect(last.status).toBe(200);
      expect(hops.at(-1)?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=[0-9a-f]{64}$/);
    });
    expect(login.stderr).toContain(opened);
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/^Signed in to http:\/\/127\.0\.0\.1:\d+ as ada@example\.com \(admin\) until /);
    const file = sessionFilePath(env);
    expect(file).toBe(join(configHome, 'model-gateway', 'session.json'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const members = await run(['member', 'list', '--json'], env);
    expect(members.code).toBe(0);
    expect(JSON.stringify(JSON.parse(members.stdout))).toContain('ada@example.com');

    // The admin key keeps working, and wins when set.
    const withKey = await run(['member', 'list', '--json'], { ...env, GATEWAY_ADMIN_KEY: gateway.adminKey });
    expect(withKey.code).toBe(0);

    const logout = await run(['logout'], env);
    expect(logout.code).toBe(0);
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    const after = await run(['member', 'list'], env);
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/GATEWAY_ADMIN_KEY is not set/);
  });

  it('refuses a one-time code without the verifier it was issued for', async () => {
    const refused = await fetch(`${gateway.url}/app/auth/cli-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'a'.repeat(64), verifier: 'b'.repeat(43) }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_grant');
  });
});
