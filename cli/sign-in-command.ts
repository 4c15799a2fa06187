import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdminRequestError, UsageError } from './cli-errors.ts';
import { readGatewayUrl } from './gateway-environment.ts';
import type { CliIo } from './run-cli.ts';
import { readStoredSession, removeStoredSession, type StoredSession, writeStoredSession } from './stored-session.ts';

/** How long `login` waits for the browser to come back before it gives up. */
const loginWaitMs = 5 * 60_000;

/**
 * `login [--device]`: signs in with the team's provider through the gateway and stores the gateway session for
 * later commands. `--device`, or a machine where no browser can be opened (below), uses the device flow; otherwise
 * (and where the provider offers no device flow) the browser on this machine does.
 */
export async function runLogin(argv: readonly string[], io: CliIo): Promise<number> {
  const unknown = argv.filter((argument) => argument !== '--device');
  if (unknown.length > 0) throw new UsageError(`login takes only --device, got '${unknown.join(' ')}'`);
  const gateway = readGatewayUrl(io.env);
  if (argv.includes('--device')) return (await runDeviceLogin(io, gateway, { required: true })) ?? 1;
  if (!canOpenBrowser(io)) {
    const answered = await runDeviceLogin(io, gateway, { required: false });
    if (answered !== undefined) return answered;
  }
  return await runLoopbackLogin(io, gateway);
}

/**
 * Whether a browser on this machine can show the provider's page, so the loopback redirect can come back to it: a
 * program is named (`GATEWAY_BROWSER`, or a test's opener), or this is a desktop session rather than a remote shell
 * (no `SSH_CONNECTION`/`SSH_TTY`, and on Linux a `DISPLAY` or `WAYLAND_DISPLAY`). Otherwise `login` uses the device
 * flow where the gateway's provider offers it.
 */
function canOpenBrowser(io: CliIo): boolean {
  if (io.openUrl || io.env['GATEWAY_BROWSER']?.trim()) return true;
  if (io.env['SSH_CONNECTION'] || io.env['SSH_TTY']) return false;
  if (process.platform === 'linux') return Boolean(io.env['DISPLAY'] || io.env['WAYLAND_DISPLAY']);
  return true;
}

/**
 * A loopback redirect with PKCE (RFC 8252): the CLI listens on 127.0.0.1 on a free port, sends the browser to the
 * gateway's `/app/auth/login` with that address and the S256 challenge of a verifier only it knows; the gateway runs
 * the provider's sign-in as for the console and sends the browser back with a one-time code, which the CLI
 * exchanges, with its verifier, for the session. Another program on the machine that saw the code cannot use it
 * without the verifier. The provider needs only the gateway's one registered redirect.
 */
async function runLoopbackLogin(io: CliIo, gateway: URL): Promise<number> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  let receive: (code: string) => void = () => {};
  const received = new Promise<string>((resolve) => {
    receive = resolve;
  });
  const listener = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const code = url.searchParams.get('code');
    if (url.pathname !== '/callback' || code === null || !/^[0-9a-f]{64}$/.test(code)) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not the sign-in callback.\n');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('Signed in to the gateway; you may close this tab.\n');
    receive(code);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  try {
    const port = (listener.address() as AddressInfo).port;
    const login = new URL('/app/auth/login', gateway);
    login.searchParams.set('cli_return', `http://127.0.0.1:${port}/callback`);
    login.searchParams.set('cli_challenge', challenge);
    io.stderr.write(`Sign in at this address (opening it in a browser where one is configured):\n${login.href}\n`);
    await (io.openUrl ?? openWithConfiguredBrowser(io.env))(login.href);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      received,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new AdminRequestError('no sign-in came back within 5 minutes')), loginWaitMs);
      }),
    ]).finally(() => clearTimeout(timer));
    return await storeSession(io, gateway, await postJson(io, gateway, '/app/auth/cli-token', { code, verifier }));
  } finally {
    listener.close();
    listener.closeAllConnections();
  }
}

/**
 * The device flow (RFC 8628): the gateway asks its provider for a code, the CLI shows it with the address to enter it
 * at (opening the address where a browser can be opened), and asks the gateway for the session until the person has
 * signed in there. Each ask is a long poll: the gateway polls the provider, at the provider's interval, for up to
 * about 15 seconds before answering 202. Undefined when the provider offers no device flow and it was not required.
 */
async function runDeviceLogin(io: CliIo, gateway: URL, options: { required: boolean }): Promise<number | undefined> {
  const start = await io.fetch(new URL('/app/auth/device', gateway), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const started = (await start.json().catch(() => ({}))) as {
    handle?: string;
    userCode?: string;
    verificationUri?: string;
    verificationUriComplete?: string | null;
    expiresAt?: string;
    error?: { code?: string; message?: string };
  };
  if (!options.required && start.status === 404 && started.error?.code === 'device_flow_unavailable') return undefined;
  if (!start.ok || !started.handle || !started.userCode || !started.verificationUri) {
    throw new AdminRequestError(
      `the gateway could not start a device sign-in: ${started.error?.message ?? `HTTP ${start.status}`}`,
    );
  }
  io.stderr.write(
    `To sign in, open ${started.verificationUri} on any device and enter the code ${started.userCode}` +
      `${started.verificationUriComplete ? `\n(or open ${started.verificationUriComplete})` : ''}` +
      `\nThe code expires at ${started.expiresAt}. Waiting…\n`,
  );
  if (io.openUrl || io.env['GATEWAY_BROWSER']?.trim()) {
    await (io.openUrl ?? openWithConfiguredBrowser(io.env))(started.verificationUriComplete ?? started.verificationUri);
  }
  for (;;) {
    const response = await io.fetch(new URL('/app/auth/device/token', gateway), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle: started.handle }),
    });
    // 202: the person has not finished at the provider yet; the gateway already waited, so ask again at once.
    if (response.status === 202) {
      await response.body?.cancel();
      continue;
    }
    return await storeSession(io, gateway, response);
  }
}

async function postJson(io: CliIo, gateway: URL, path: string, body: unknown): Promise<Response> {
  return io.fetch(new URL(path, gateway), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The gateway's answer with a session, stored 0600 for later commands; or its refusal, as an error. */
async function storeSession(io: CliIo, gateway: URL, response: Response): Promise<number> {
  const answer = (await response.json().catch(() => ({}))) as {
    session?: string;
    expiresAt?: string;
    member?: StoredSession['member'];
    error?: { message?: string };
  };
  if (!response.ok || !answer.session || !answer.expiresAt || !answer.member) {
    throw new AdminRequestError(
      `the gateway refused the sign-in: ${answer.error?.message ?? `HTTP ${response.status}`}`,
    );
  }
  const stored = {
    gateway: gateway.origin,
    session: answer.session,
    expiresAt: answer.expiresAt,
    member: answer.member,
  };
  await writeStoredSession(io.env, stored);
  io.stdout.write(
    `Signed in to ${stored.gateway} as ${stored.member.name} (${stored.member.role}) until ${stored.expiresAt}\n`,
  );
  return 0;
}

/** `GATEWAY_BROWSER` names the program that opens the address (`xdg-open`, `open`, a browser); unset, it is printed only. */
function openWithConfiguredBrowser(env: Readonly<Record<string, string | undefined>>) {
  return (url: string) => {
    const browser = env['GATEWAY_BROWSER']?.trim();
    if (!browser) return;
    spawn(browser, [url], { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
  };
}

/** `logout`: ends the stored session at the gateway and forgets it. */
export async function runLogout(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length > 0) throw new UsageError(`logout takes no arguments, got '${argv.join(' ')}'`);
  const gateway = readGatewayUrl(io.env);
  const stored = await readStoredSession(io.env, gateway, new Date());
  if (stored) {
    const response = await io.fetch(new URL('/app/auth/logout', gateway), {
      method: 'POST',
      headers: { authorization: `Session ${stored.session}` },
    });
    await response.body?.cancel();
  }
  await removeStoredSession(io.env);
  io.stdout.write(stored ? `Signed out of ${stored.gateway}\n` : 'No session was stored; nothing to sign out of\n');
  return 0;
}
