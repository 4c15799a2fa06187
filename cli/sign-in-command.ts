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
 * `login`: signs in with the team's provider through the gateway, in a browser, and stores the gateway session for
 * later commands. A loopback redirect with PKCE (RFC 8252): the CLI listens on 127.0.0.1 on a free port, sends the
 * browser to the gateway's `/app/auth/login` with that address and the S256 challenge of a verifier only it knows;
 * the gateway runs the provider's sign-in as for the console and sends the browser back with a one-time code, which
 * the CLI exchanges, with its verifier, for the session. Another program on the machine that saw the code cannot
 * use it without the verifier. The provider needs only the gateway's one registered redirect.
 */
export async function runLogin(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length > 0) throw new UsageError(`login takes no arguments, got '${argv.join(' ')}'`);
  const gateway = readGatewayUrl(io.env);
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
    const stored = await exchange(io, gateway, code, verifier);
    await writeStoredSession(io.env, stored);
    io.stdout.write(
      `Signed in to ${stored.gateway} as ${stored.member.name} (${stored.member.role}) until ${stored.expiresAt}\n`,
    );
    return 0;
  } finally {
    listener.close();
    listener.closeAllConnections();
  }
}

async function exchange(io: CliIo, gateway: URL, code: string, verifier: string): Promise<StoredSession> {
  const response = await io.fetch(new URL('/app/auth/cli-token', gateway), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, verifier }),
  });
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
  return { gateway: gateway.origin, session: answer.session, expiresAt: answer.expiresAt, member: answer.member };
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
