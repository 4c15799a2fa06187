import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { decodeJwt, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../../cli/run-cli.ts';
import { sessionFilePath } from '../../cli/stored-session.ts';
import { CookieJar, completeDeviceSignIn, follow } from '../support/sign-in-driver.ts';
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

async function run(
  argv: string[],
  env: Record<string, string>,
  openUrl?: (url: string) => unknown,
  onStderr?: (text: string) => void,
) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: {
      write: (text: string) => {
        stderr += text;
        onStderr?.(text);
        return true;
      },
    },
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

describe('the admin CLI signs in with the device flow (RFC 8628)', () => {
  let deviceProvider: TestIdentityProvider;
  let deviceGateway: TestGateway;
  beforeAll(async () => {
    // A public client of its own for the device flow, as Okta and Entra ID want it.
    deviceProvider = await startTestIdentityProvider({ deviceFlow: true, deviceClientId: 'model-gateway-cli' });
    deviceGateway = await startTestGateway({
      environment: {
        GATEWAY_OIDC_ISSUER: deviceProvider.issuer,
        GATEWAY_OIDC_CLIENT_ID: deviceProvider.clientId,
        GATEWAY_OIDC_CLIENT_SECRET: deviceProvider.clientSecret,
        GATEWAY_OIDC_DEVICE_CLIENT_ID: 'model-gateway-cli',
        GATEWAY_OIDC_SCOPES: 'openid email profile groups',
        GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins',
        GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member',
      },
    });
    deviceProvider.registerGateway(`${deviceGateway.url}/app/auth/callback`);
    deviceProvider.people.set('sub-ada', {
      email: 'ada@example.com',
      email_verified: true,
      name: 'Ada',
      groups: ['gateway-admins'],
    });
  }, 60_000);
  afterAll(async () => {
    await deviceGateway?.close();
    await deviceProvider?.close();
  });

  it('login --device: a code entered at the provider on another device, the session stored 0600 and used', async () => {
    const home = await mkdtemp(join(tmpdir(), 'gateway-cli-device-'));
    try {
      const env = { GATEWAY_URL: deviceGateway.url, XDG_CONFIG_HOME: home };
      deviceProvider.signInAs('sub-ada');
      let person: Promise<string> | undefined;
      // The opener is the other device: it opens the address with the code in it and signs in there, while the CLI waits.
      const login = await run(['login', '--device'], env, (url) => {
        expect(url.startsWith(`${deviceProvider.issuer}/`)).toBe(true);
        person = completeDeviceSignIn(url);
      });
      expect(login.stderr).toMatch(
        /open http:\/\/127\.0\.0\.1:\d+\/device\S* on any device and enter the code [A-Z]{4}-[A-Z]{4}/,
      );
      expect(login.code).toBe(0);
      expect(await person).toContain('Sign-in Success');
      expect(login.stdout).toMatch(/^Signed in to http:\/\/127\.0\.0\.1:\d+ as ada@example\.com \(admin\) until /);
      const file = sessionFilePath(env);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // The device code never reached the CLI: only the gateway's handle and the user code did.
      expect(login.stderr).not.toMatch(/device_code/);
      const members = await run(['member', 'list', '--json'], env);
      expect(members.code).toBe(0);
      expect(members.stdout).toContain('ada@example.com');
      const { entries } = await deviceGateway.admin.call<{ entries: Array<{ after: Record<string, unknown> }> }>(
        'GET',
        '/audit?action=session.sign-in',
      );
      expect(entries[0]?.after).toMatchObject({ client: 'cli', email: 'ada@example.com' });
      expect((await run(['logout'], env)).code).toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('chooses the device flow by itself in a remote shell where no browser can be opened', async () => {
    const home = await mkdtemp(join(tmpdir(), 'gateway-cli-device-'));
    try {
      const env = {
        GATEWAY_URL: deviceGateway.url,
        XDG_CONFIG_HOME: home,
        SSH_CONNECTION: '10.0.0.2 50000 10.0.0.1 22',
      };
      deviceProvider.signInAs('sub-ada');
      let person: Promise<string> | undefined;
      // The person reads the address and the code from the terminal and types the code in on their laptop.
      const login = await run(['login'], env, undefined, (text) => {
        const shown = text.match(/open (\S+) on any device and enter the code (\S+)/);
        if (shown?.[1] && shown[2]) person = completeDeviceSignIn(shown[1], new CookieJar(), shown[2]);
      });
      expect(login.code).toBe(0);
      expect(await person).toContain('Sign-in Success');
      expect((await stat(sessionFilePath(env))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  /** The CLI's two requests by hand: a device sign-in begun, and one ask for its session. */
  const startDevice = async () =>
    (await (
      await fetch(`${deviceGateway.url}/app/auth/device`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { handle: string; verificationUriComplete: string };
  const askForSession = (handle: string) =>
    fetch(`${deviceGateway.url}/app/auth/device/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle }),
    });

  it('answers 202 while the person has not finished, keeps the sign-in for the next ask, then gives the session', async () => {
    const started = await startDevice();
    const waiting = await askForSession(started.handle);
    expect(waiting.status).toBe(202);
    expect(await waiting.json()).toEqual({ pending: true });
    deviceProvider.signInAs('sub-ada');
    await completeDeviceSignIn(started.verificationUriComplete);
    const done = await askForSession(started.handle);
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ session: expect.stringMatching(/^gws_/), member: { role: 'admin' } });
    // The handle is spent once the session is given.
    expect((await askForSession(started.handle)).status).toBe(400);
  }, 60_000);

  it('verifies the device flow’s ID token as the callback’s: alg none and another client’s audience refused', async () => {
    const forgeries = [
      (claims: JWTPayload) => new UnsecuredJWT(claims).encode(),
      // Signed by the provider, but for the gateway's web client: the device flow's token must name the device client.
      (claims: JWTPayload) =>
        new SignJWT({ ...claims, aud: deviceProvider.clientId })
          .setProtectedHeader({ alg: 'RS256', kid: deviceProvider.signingKey.kid })
          .sign(deviceProvider.signingKey.privateKey),
    ];
    for (const forge of forgeries) {
      const started = await startDevice();
      deviceProvider.signInAs('sub-ada');
      deviceProvider.rewriteIdToken = async (genuine) => forge(decodeJwt(genuine));
      try {
        await completeDeviceSignIn(started.verificationUriComplete);
        const refused = await askForSession(started.handle);
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('id_token_invalid');
      } finally {
        deviceProvider.rewriteIdToken = undefined;
      }
    }
  }, 60_000);

  it('refuses the sign-in the provider refuses, and audits it', async () => {
    const started = await startDevice();
    deviceProvider.refuseNextSignIn();
    await completeDeviceSignIn(started.verificationUriComplete);
    const refused = await askForSession(started.handle);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('provider_refused');
    const { entries } = await deviceGateway.admin.call<{ entries: Array<{ after: Record<string, unknown> }> }>(
      'GET',
      '/audit?action=session.refused',
    );
    expect(entries[0]?.after).toMatchObject({ code: 'provider_access_denied', client: 'cli' });
  }, 60_000);

  it('refuses a handle it never gave, and --device where the provider offers no device flow', async () => {
    const madeUp = await fetch(`${deviceGateway.url}/app/auth/device/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'a'.repeat(64) }),
    });
    expect(madeUp.status).toBe(400);
    expect(((await madeUp.json()) as { error: { code: string } }).error.code).toBe('invalid_grant');

    const withoutDeviceFlow = await run(['login', '--device'], {
      GATEWAY_URL: gateway.url,
      XDG_CONFIG_HOME: configHome,
    });
    expect(withoutDeviceFlow.code).not.toBe(0);
    expect(withoutDeviceFlow.stderr).toContain('offers no device flow');
  });
});
