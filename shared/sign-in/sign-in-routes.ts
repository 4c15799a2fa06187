import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { SignInConfig } from '../config/gateway-config.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { gatewayEndpoint } from '../http/gateway-endpoint.ts';
import { badRequest, GatewayError, notFound } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { describeIssues } from '../http/parse-request.ts';
import { checkRequestEnvelope, readJsonObject } from '../http/read-request.ts';
import { renderFailure } from '../http/render-error.ts';
import * as z from '../validation/zod.ts';
import { admitPerson, refusedToken } from './admit-person.ts';
import { finishDeviceSignIn, startDeviceSignIn } from './device-sign-in.ts';
import { oidcRuntime, verifyIdTokenSignature } from './oidc-client.ts';
import { refusalPage, wantsPage } from './refusal-page.ts';
import { authenticateCaller } from './session-authentication.ts';
import { consoleHeader, cookieNames, readCookie, setCookie, sha256, usesHttps } from './session-cookie.ts';
import { auditSignIn } from './sign-in-audit.ts';
import { SignInRefusal } from './sign-in-refusal.ts';

/** How long a sign-in may take between the login redirect and the callback, and a CLI grant before its exchange. */
const pendingSignInMs = 10 * 60_000;
const cliGrantMs = 60_000;
export const callbackPath = '/app/auth/callback';
/** Where the browser lands once signed in (CONTRACTS §B). */
export const consolePath = '/app/admin';

const noStore = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

const json = (statusCode: number, body: unknown, cookies?: string[]): GatewayResponse => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...noStore },
  body: JSON.stringify(body),
  ...(cookies ? { cookies } : {}),
});

const redirect = (location: string, cookies?: string[]): GatewayResponse => ({
  statusCode: 302,
  headers: { location, ...noStore },
  body: '',
  ...(cookies ? { cookies } : {}),
});

/** The CLI's loopback listener: plain http on 127.0.0.1 and a port, nothing else (RFC 8252 §7.3). */
const loopbackReturn = z.string().check(z.regex(/^http:\/\/127\.0\.0\.1:\d{1,5}\/[A-Za-z0-9/_-]*$/));
/** An S256 PKCE challenge: 43 base64url characters. */
const pkceChallenge = z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/));
const cliExchangeBody = z.strictObject({
  code: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  verifier: z.string().check(z.regex(/^[A-Za-z0-9._~-]{43,128}$/)),
});

/** What the admin CLI's `login` sends to start its sign-in (cli/sign-in-command.ts). */
const cliLoginParameters = ['cli_return', 'cli_challenge'];

/** What an OpenID provider sends back to the callback (RFC 6749 §4.1.2, RFC 9207's `iss`). */
const providerAnswerParameters = ['code', 'state', 'iss', 'session_state', 'error', 'error_description', 'error_uri'];

/**
 * Sign-in with the team's OpenID provider, under `/app/auth/`: `GET login` (to the provider), `GET callback` (back
 * from it), `GET session` (what the console asks first), `POST logout`, `POST cli-token` (the admin CLI's
 * one-time code for its session), and `POST device`, `POST device/token` (the CLI's device flow, device-sign-in.ts).
 * Without an issuer configured, only `session` answers (sign-in disabled).
 */
export async function handleSignIn(services: GatewayServices, request: GatewayRequest): Promise<GatewayResponse> {
  try {
    const signIn = services.config.signIn;
    const operation = `${request.method} ${request.path}`;
    // The provider's answer comes back in the callback's query (its one-time code and our state): only there are
    // those parameters expected; anything else credential-like in a query is refused as on every other route.
    const query = new URLSearchParams(request.query);
    if (operation === `GET ${callbackPath}`) for (const name of providerAnswerParameters) query.delete(name);
    // The CLI's loopback address and its PKCE challenge (a hash, high-entropy by design) start its sign-in.
    if (operation === 'GET /app/auth/login') for (const name of cliLoginParameters) query.delete(name);
    checkRequestEnvelope({ ...request, query }, services.config.bodyLimitBytes);
    if (operation === 'GET /app/auth/session') return await sessionState(services, request);
    if (!signIn) throw notFound('sso_not_configured', 'Sign-in with an identity provider is not configured here.');
    switch (operation) {
      case 'GET /app/auth/login':
        return await login(services, signIn, request);
      case `GET ${callbackPath}`:
        return await callback(services, signIn, request);
      case 'POST /app/auth/logout':
        return await logout(services, request);
      case 'POST /app/auth/cli-token':
        return await cliToken(services, request);
      case 'POST /app/auth/device':
        return await startDeviceSignIn(services, signIn);
      case 'POST /app/auth/device/token':
        return await finishDeviceSignIn(services, signIn, request);
      default:
        throw notFound('unknown_route', `No sign-in operation at ${operation}.`);
    }
  } catch (error) {
    if (error instanceof SignInRefusal) {
      if (wantsPage(request)) return refusalPage(error.status, error.code, error.message, consolePath);
      return renderFailure(new GatewayError(error.status, error.code, error.message), 'openai', {
        operation: 'sign-in',
        requestId: request.requestId,
      });
    }
    return renderFailure(error, 'openai', { operation: 'sign-in', requestId: request.requestId });
  }
}

function redirectUri(services: GatewayServices, request: GatewayRequest): string {
  const endpoint = gatewayEndpoint(services.config, request.headers);
  if (!endpoint) throw badRequest('missing_host', 'The request names no host to return to.');
  return `${endpoint}${callbackPath}`;
}

async function login(services: GatewayServices, signIn: SignInConfig, request: GatewayRequest) {
  const cliReturn = request.query.get('cli_return');
  const cliChallenge = request.query.get('cli_challenge');
  let cli: { returnTo: string; codeChallenge: string } | undefined;
  if (cliReturn !== null || cliChallenge !== null) {
    if (!loopbackReturn.safeParse(cliReturn).success || !pkceChallenge.safeParse(cliChallenge).success) {
      throw badRequest(
        'invalid_cli_sign_in',
        'cli_return must be http://127.0.0.1:<port>/… and cli_challenge an S256 challenge.',
      );
    }
    cli = { returnTo: cliReturn as string, codeChallenge: cliChallenge as string };
  }
  const runtime = await oidcRuntime(services, signIn);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const binding = randomBytes(32).toString('hex');
  await services.store.sessions.begin({
    stateHash: sha256(state),
    codeVerifier,
    nonce,
    browserBindingHash: sha256(binding),
    cli,
    expiresAt: new Date(services.now().getTime() + pendingSignInMs).toISOString(),
  });
  const location = client.buildAuthorizationUrl(runtime.configuration, {
    redirect_uri: redirectUri(services, request),
    scope: signIn.scopes,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  const secure = usesHttps(services.config, request.headers);
  return redirect(location.href, [
    setCookie(cookieNames(secure).signIn, binding, { secure, maxAgeSeconds: pendingSignInMs / 1000, sameSite: 'Lax' }),
  ]);
}

async function callback(services: GatewayServices, signIn: SignInConfig, request: GatewayRequest) {
  const secure = usesHttps(services.config, request.headers);
  const names = cookieNames(secure);
  const clearSignIn = setCookie(names.signIn, '', { secure, maxAgeSeconds: 0, sameSite: 'Lax' });
  const state = request.query.get('state');
  // The state is taken from the store as it is read: a second callback with it (a replay) finds nothing.
  const pending = state ? await services.store.sessions.take(sha256(state), services.now()) : undefined;
  const binding = readCookie(request.headers, names.signIn);
  if (!pending || binding === undefined || sha256(binding) !== pending.browserBindingHash) {
    await auditSignIn(services, 'session.refused', { code: 'sign_in_state_invalid' });
    throw new SignInRefusal(
      'sign_in_state_invalid',
      'This sign-in is unknown, was used already, expired, or began in another browser; sign in again.',
      400,
    );
  }
  const providerError = request.query.get('error');
  if (providerError !== null) {
    const code = /^[a-z_]{1,64}$/.test(providerError) ? providerError : 'error';
    await auditSignIn(services, 'session.refused', { code: `provider_${code}` });
    throw new SignInRefusal('provider_refused', `The identity provider refused the sign-in (${code}).`);
  }
  const runtime = await oidcRuntime(services, signIn);
  let idToken: string;
  try {
    const currentUrl = new URL(`${redirectUri(services, request)}?${request.query.toString()}`);
    const tokens = await client.authorizationCodeGrant(runtime.configuration, currentUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: state as string,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    idToken = tokens.id_token as string;
  } catch (error) {
    throw await refusedToken(services, error);
  }
  let claims: Awaited<ReturnType<typeof verifyIdTokenSignature>>;
  try {
    claims = await verifyIdTokenSignature(runtime, signIn, idToken);
    if (claims.nonce !== pending.nonce) throw new Error('the nonce is not the one this sign-in sent');
  } catch (error) {
    throw await refusedToken(services, error);
  }
  const { session, sessionId } = await admitPerson(services, signIn, claims, pending.cli ? 'cli' : 'console');
  if (pending.cli) {
    // The CLI gets a one-time code at its loopback address, good only with its own PKCE verifier, for a minute.
    const code = randomBytes(32).toString('hex');
    await services.store.sessions.grantCli({
      codeHash: sha256(code),
      codeChallenge: pending.cli.codeChallenge,
      session,
      sessionId,
      expiresAt: new Date(services.now().getTime() + cliGrantMs).toISOString(),
    });
    return redirect(`${pending.cli.returnTo}?code=${code}`, [clearSignIn]);
  }
  await services.store.sessions.create(session);
  return redirect(consolePath, [
    clearSignIn,
    setCookie(names.session, sessionId, { secure, maxAgeSeconds: signIn.sessionMs / 1000, sameSite: 'Strict' }),
  ]);
}

async function sessionState(services: GatewayServices, request: GatewayRequest) {
  const enabled = services.config.signIn !== undefined;
  if (!enabled) return json(200, { sso: { enabled }, signedIn: false });
  const cookie = readCookie(request.headers, cookieNames(usesHttps(services.config, request.headers)).session);
  if (cookie === undefined) return json(200, { sso: { enabled }, signedIn: false });
  try {
    const principal = await authenticateCaller(services, {
      ...request,
      headers: { cookie: request.headers.cookie, [consoleHeader]: '1', host: request.headers.host },
    });
    return json(200, {
      sso: { enabled },
      signedIn: true,
      member: { id: principal.memberId, name: principal.member.name, role: principal.member.role },
      expiresAt: principal.session?.expiresAt,
    });
  } catch {
    return json(200, { sso: { enabled }, signedIn: false });
  }
}

async function logout(services: GatewayServices, request: GatewayRequest) {
  const secure = usesHttps(services.config, request.headers);
  const names = cookieNames(secure);
  const cliSession = request.headers.authorization?.match(/^Session\s+(\S+)$/i)?.[1];
  const cookie = readCookie(request.headers, names.session);
  if (cliSession === undefined && request.headers[consoleHeader] !== '1') {
    throw badRequest('console_header_required', `Sign out with "${consoleHeader}: 1" (the console sends it).`);
  }
  const sessionId = cliSession ?? cookie;
  if (sessionId !== undefined) {
    const idHash = sha256(sessionId);
    const session = await services.store.sessions.find(idHash, services.now());
    await services.store.sessions.remove(idHash);
    if (session) {
      await auditSignIn(services, 'session.sign-out', {
        memberId: session.memberId,
        sessionHash: idHash,
        client: session.client,
      });
    }
  }
  return json(200, { signedOut: true }, [
    setCookie(names.session, '', { secure, maxAgeSeconds: 0, sameSite: 'Strict' }),
  ]);
}

async function cliToken(services: GatewayServices, request: GatewayRequest) {
  const parsed = cliExchangeBody.safeParse(readJsonObject(request));
  if (!parsed.success) throw badRequest('invalid_request', describeIssues(parsed.error));
  const grant = await services.store.sessions.takeCliGrant(sha256(parsed.data.code), services.now());
  if (!grant || (await client.calculatePKCECodeChallenge(parsed.data.verifier)) !== grant.codeChallenge) {
    throw new SignInRefusal('invalid_grant', 'The code is unknown, used, expired, or not for this verifier.', 400);
  }
  await services.store.sessions.create(grant.session);
  const member = await services.store.members.get(grant.session.memberId, { consistent: true });
  return json(200, {
    session: grant.sessionId,
    expiresAt: grant.session.expiresAt,
    member: { id: grant.session.memberId, name: member?.name ?? grant.session.email, role: grant.session.role },
  });
}
