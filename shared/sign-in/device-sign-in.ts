import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { SignInConfig } from '../config/gateway-config.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { badRequest, notFound } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { describeIssues } from '../http/parse-request.ts';
import { readJsonObject } from '../http/read-request.ts';
import * as z from '../validation/zod.ts';
import { admitPerson, refusedToken } from './admit-person.ts';
import { oidcRuntime, verifyIdTokenSignature } from './oidc-client.ts';
import { sha256 } from './session-cookie.ts';
import { auditSignIn } from './sign-in-audit.ts';
import { SignInRefusal } from './sign-in-refusal.ts';

/**
 * The admin CLI's device flow (RFC 8628), for a machine with no browser: the gateway, as the provider's client,
 * asks for a device code (openid-client's `initiateDeviceAuthorization`) and gives the CLI the user code, the
 * address to enter it at, and a handle of its own; the `device_code` stays in the gateway's store. The CLI then asks
 * `device/token` with the handle; each such request runs openid-client's `pollDeviceAuthorizationGrant` (which
 * keeps the provider's interval and `slow_down`) for a bounded while, so no request outlives a function's time-out,
 * and answers 202 while the person has not finished. The ID token that comes back is verified as the callback's is
 * (signature against the provider's keys, issuer, audience = the client that asked, times) and admits the person
 * the same way. There is no nonce in this grant; the token travels only from the provider's token endpoint to the
 * gateway, never through the CLI or a browser.
 */

const handleBody = z.strictObject({ handle: z.string().check(z.regex(/^[0-9a-f]{64}$/)) });

/** How long one `device/token` request keeps polling the provider at most: well inside a function's time-out. */
const longestPollMs = 15_000;

const json = (statusCode: number, body: unknown): GatewayResponse => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify(body),
});

function deviceClient(runtime: Awaited<ReturnType<typeof oidcRuntime>>) {
  if (!runtime.device) {
    throw notFound(
      'device_flow_unavailable',
      'The identity provider offers no device flow (no device_authorization_endpoint); sign in with `login` in a browser.',
    );
  }
  return runtime.device;
}

/** `POST /app/auth/device`: a device code from the provider; the CLI gets the user code and a handle. */
export async function startDeviceSignIn(services: GatewayServices, signIn: SignInConfig): Promise<GatewayResponse> {
  const device = deviceClient(await oidcRuntime(services, signIn));
  const authorization = await client.initiateDeviceAuthorization(device.configuration, { scope: signIn.scopes });
  const handle = randomBytes(32).toString('hex');
  const expiresAt = new Date(services.now().getTime() + authorization.expires_in * 1000).toISOString();
  await services.store.sessions.beginDevice({
    handleHash: sha256(handle),
    authorization: {
      device_code: authorization.device_code,
      user_code: authorization.user_code,
      verification_uri: authorization.verification_uri,
      verification_uri_complete: authorization.verification_uri_complete,
      expires_in: authorization.expires_in,
      interval: authorization.interval,
    },
    expiresAt,
  });
  return json(200, {
    handle,
    userCode: authorization.user_code,
    verificationUri: authorization.verification_uri,
    verificationUriComplete: authorization.verification_uri_complete ?? null,
    expiresAt,
  });
}

/**
 * `POST /app/auth/device/token` `{ handle }`: 200 with the session once the person has signed in at the provider,
 * 202 `{ pending: true }` while they have not (ask again), or a refusal.
 */
export async function finishDeviceSignIn(
  services: GatewayServices,
  signIn: SignInConfig,
  request: GatewayRequest,
): Promise<GatewayResponse> {
  const parsed = handleBody.safeParse(readJsonObject(request));
  if (!parsed.success) throw badRequest('invalid_request', describeIssues(parsed.error));
  const runtime = await oidcRuntime(services, signIn);
  const device = deviceClient(runtime);
  // Taken while this request polls, so two pollers never redeem one device code; put back if still pending.
  const pending = await services.store.sessions.takeDevice(sha256(parsed.data.handle), services.now());
  if (!pending) {
    throw new SignInRefusal('invalid_grant', 'This device sign-in is unknown, finished, expired or being polled.', 400);
  }
  const remainingMs = Date.parse(pending.expiresAt) - services.now().getTime();
  // Stop half an interval after a poll, never during one, so a token the provider issues is not abandoned mid-way.
  const intervalMs = (pending.authorization.interval ?? 5) * 1000;
  const pollMs = Math.min(
    remainingMs,
    Math.max(1, Math.floor((longestPollMs - intervalMs / 2) / intervalMs)) * intervalMs + intervalMs / 2,
  );
  let idToken: string | undefined;
  try {
    const tokens = await client.pollDeviceAuthorizationGrant(device.configuration, pending.authorization, undefined, {
      signal: AbortSignal.timeout(Math.max(pollMs, 1)),
    });
    idToken = tokens.id_token;
  } catch (error) {
    if (isAbort(error) && remainingMs > pollMs) {
      await services.store.sessions.beginDevice(pending);
      return json(202, { pending: true });
    }
    const code = error instanceof client.ResponseBodyError ? error.error : isAbort(error) ? 'expired_token' : undefined;
    // Anything else is the provider's answer failing openid-client's checks (an ID token's alg, iss, aud, times).
    if (code === undefined) throw await refusedToken(services, error);
    await auditSignIn(services, 'session.refused', { code: `provider_${code}`, client: 'cli' });
    if (code === 'expired_token')
      throw new SignInRefusal('device_code_expired', 'The code expired before it was entered; run login again.', 400);
    throw new SignInRefusal('provider_refused', `The identity provider refused the sign-in (${code}).`);
  }
  if (idToken === undefined) throw await refusedToken(services, new Error('the provider returned no ID token'));
  let claims: Awaited<ReturnType<typeof verifyIdTokenSignature>>;
  try {
    claims = await verifyIdTokenSignature(runtime, signIn, idToken, device.clientId);
  } catch (error) {
    throw await refusedToken(services, error);
  }
  const { session, sessionId } = await admitPerson(services, signIn, claims, 'cli');
  await services.store.sessions.create(session);
  const member = await services.store.members.get(session.memberId, { consistent: true });
  return json(200, {
    session: sessionId,
    expiresAt: session.expiresAt,
    member: { id: session.memberId, name: member?.name ?? session.email, role: session.role },
  });
}

function isAbort(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause ?? error) : error;
  return cause instanceof Error && (cause.name === 'AbortError' || cause.name === 'TimeoutError');
}
