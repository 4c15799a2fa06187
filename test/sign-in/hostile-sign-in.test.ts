import { randomBytes } from 'node:crypto';
import { decodeJwt, exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/observability/logger.ts';
import { CookieJar, reachCallback, signIn, visitCallback } from '../support/sign-in-driver.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.ts';

/**
 * Hostile input at sign-in (issue 21 item 5), each against the real provider: the token endpoint's genuine ID
 * token is swapped for one the test forges with jose (same claims unless the case changes one), or the callback is
 * tampered with or replayed. Every forgery is refused, and nothing of it becomes a session.
 */
let provider: TestIdentityProvider;
let gateway: TestGateway;
const now = () => Math.floor(Date.now() / 1000);

async function startGatewayFor(identityProvider: TestIdentityProvider, settings: Record<string, string> = {}) {
  const started = await startTestGateway({
    environment: {
      GATEWAY_OIDC_ISSUER: identityProvider.issuer,
      GATEWAY_OIDC_CLIENT_ID: identityProvider.clientId,
      GATEWAY_OIDC_CLIENT_SECRET: identityProvider.clientSecret,
      GATEWAY_OIDC_SCOPES: 'openid email profile groups',
      GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins',
      GATEWAY_OIDC_EMAIL_DOMAINS: 'example.com',
      ...settings,
    },
  });
  identityProvider.registerGateway(`${started.url}/app/auth/callback`);
  return started;
}

beforeAll(async () => {
  provider = await startTestIdentityProvider();
  gateway = await startGatewayFor(provider, { GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member' });
  provider.people.set('sub-eve', { email: 'eve@example.com', email_verified: true, name: 'Eve', groups: [] });
  provider.people.set('sub-unverified', { email: 'una@example.com', email_verified: false, name: 'Una', groups: [] });
  provider.people.set('sub-outsider', { email: 'otto@elsewhere.org', email_verified: true, name: 'Otto', groups: [] });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await provider?.close();
});

const errorCode = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

/** A sign-in as `subject` whose ID token is replaced by `forge(genuine claims, genuine token)`. */
async function signInWithForgery(forge: (claims: JWTPayload, genuine: string) => Promise<string>, subject = 'sub-eve') {
  provider.signInAs(subject);
  provider.rewriteIdToken = async (genuine) => forge(decodeJwt(genuine), genuine);
  try {
    return await signIn(gateway.url);
  } finally {
    provider.rewriteIdToken = undefined;
  }
}

const signWithProviderKey = (claims: JWTPayload, header: Record<string, unknown> = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: provider.signingKey.kid, ...header })
    .sign(provider.signingKey.privateKey);

async function expectRefusedToken(result: Awaited<ReturnType<typeof signIn>>) {
  expect(result.answer.status).toBe(401);
  expect(errorCode(result.answer.body)).toBe('id_token_invalid');
  expect(result.answer.setCookies.some((line) => line.startsWith('gateway-session=gws_'))).toBe(false);
  expect(result.jar.cookies.has('gateway-session')).toBe(false);
}

describe('hostile ID tokens', () => {
  it('accepts the genuine token (the forgeries below differ from it in one thing each)', async () => {
    const result = await signInWithForgery(async (_claims, genuine) => genuine);
    expect(result.answer.status).toBe(302);
    expect(result.jar.cookies.get('gateway-session')).toMatch(/^gws_/);
  });

  it('refuses alg "none", and audits the sign-in and the refusal without a token, code or state', async () => {
    const audit = vi.spyOn(logger, 'info');
    try {
      let forged = '';
      await expectRefusedToken(
        await signInWithForgery(async (claims) => {
          forged = new UnsecuredJWT(claims).encode();
          return forged;
        }),
      );
      const genuine = await signInWithForgery(async (_claims, token) => token);
      const entries = audit.mock.calls.filter(([message]) => message === 'audit').map(([, details]) => details);
      expect(entries).toEqual([
        expect.objectContaining({ action: 'session.refused', code: 'id_token_invalid' }),
        expect.objectContaining({ action: 'session.sign-in', subject: 'sub-eve', email: 'eve@example.com' }),
      ]);
      const written = JSON.stringify(entries);
      expect(written).not.toContain(forged.split('.')[1]);
      expect(written).not.toMatch(/eyJ|gws_|code=|state=/);
      expect(genuine.answer.status).toBe(302);
      // The audit log in the store says the same, with the failed check, and holds no token either.
      const stored = await gateway.admin.call<{ entries: Array<{ action: string; after: Record<string, unknown> }> }>(
        'GET',
        '/audit?limit=2',
      );
      expect(stored.entries.map((entry) => entry.action)).toEqual(['session.sign-in', 'session.refused']);
      expect(stored.entries[1]?.after).toMatchObject({ code: 'id_token_invalid', reason: expect.any(String) });
      expect(JSON.stringify(stored.entries)).not.toContain(forged.split('.')[1]);
      expect(JSON.stringify(stored.entries)).not.toMatch(/eyJ|gws_/);
    } finally {
      audit.mockRestore();
    }
  });

  it('refuses HS256 keyed with the provider’s public key (PEM and JWK)', async () => {
    const pem = await exportSPKI(
      await crypto.subtle.importKey(
        'jwk',
        provider.signingKey.publicJwk,
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        true,
        ['verify'],
      ),
    );
    for (const secret of [pem, JSON.stringify(provider.signingKey.publicJwk)]) {
      await expectRefusedToken(
        await signInWithForgery((claims) =>
          new SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', kid: provider.signingKey.kid })
            .sign(new TextEncoder().encode(secret)),
        ),
      );
    }
  });

  it('refuses a key the provider does not publish (unknown kid), and a known kid with a stranger’s key', async () => {
    const stranger = await generateKeyPair('RS256');
    await expectRefusedToken(
      await signInWithForgery((claims) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'not-published' }).sign(stranger.privateKey),
      ),
    );
    await expectRefusedToken(
      await signInWithForgery((claims) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', kid: provider.signingKey.kid })
          .sign(stranger.privateKey),
      ),
    );
  });

  it('refuses the wrong issuer and the wrong audience', async () => {
    await expectRefusedToken(
      await signInWithForgery((claims) => signWithProviderKey({ ...claims, iss: 'https://evil.example' })),
    );
    await expectRefusedToken(
      await signInWithForgery((claims) => signWithProviderKey({ ...claims, aud: 'another-client' })),
    );
  });

  it('refuses an expired token and one not yet valid', async () => {
    await expectRefusedToken(
      await signInWithForgery((claims) => signWithProviderKey({ ...claims, iat: now() - 7_200, exp: now() - 3_600 })),
    );
    await expectRefusedToken(
      await signInWithForgery((claims) => signWithProviderKey({ ...claims, iat: now() + 3_600, exp: now() + 7_200 })),
    );
    await expectRefusedToken(
      await signInWithForgery((claims) => signWithProviderKey({ ...claims, nbf: now() + 3_600 })),
    );
  });

  it('refuses a token issued long ago though not yet expired (iat more than ten minutes old)', async () => {
    await expectRefusedToken(
      await signInWithForgery((claims) => signWithProviderKey({ ...claims, iat: now() - 3_600, exp: now() + 3_600 })),
    );
  });

  it('refuses a correctly signed token whose nonce is another one, or missing', async () => {
    await expectRefusedToken(
      await signInWithForgery((claims) =>
        signWithProviderKey({ ...claims, nonce: randomBytes(32).toString('base64url') }),
      ),
    );
    await expectRefusedToken(await signInWithForgery(({ nonce: _nonce, ...claims }) => signWithProviderKey(claims)));
  });

  it('refuses a replayed ID token: its nonce belongs to an earlier sign-in', async () => {
    let earlier: string | undefined;
    const first = await signInWithForgery(async (_claims, genuine) => {
      earlier = genuine;
      return genuine;
    });
    expect(first.answer.status).toBe(302);
    await expectRefusedToken(await signInWithForgery(async () => earlier as string));
  });

  it('refuses an unverified e-mail and a domain not allowed, with a refusal of their own', async () => {
    provider.signInAs('sub-unverified');
    const unverified = await signIn(gateway.url);
    expect(unverified.answer.status).toBe(403);
    expect(errorCode(unverified.answer.body)).toBe('email_unverified');
    provider.signInAs('sub-outsider');
    const outsider = await signIn(gateway.url);
    expect(outsider.answer.status).toBe(403);
    expect(errorCode(outsider.answer.body)).toBe('email_domain_refused');
  });
});

describe('hostile callbacks', () => {
  it('refuses a mismatched state, a reused state, and a callback from another browser', async () => {
    provider.signInAs('sub-eve');
    const jar = new CookieJar();
    const callback = await reachCallback(gateway.url, jar);
    const tampered = new URL(callback);
    tampered.searchParams.set('state', randomBytes(32).toString('base64url'));
    const mismatched = await visitCallback(tampered.href, jar);
    expect(mismatched.status).toBe(400);
    expect(errorCode(mismatched.body)).toBe('sign_in_state_invalid');

    const genuine = await visitCallback(callback, jar);
    expect(genuine.status).toBe(302);
    const reused = await visitCallback(callback, jar);
    expect(reused.status).toBe(400);
    expect(errorCode(reused.body)).toBe('sign_in_state_invalid');

    // A callback link sent to someone else (login CSRF): their browser holds no binding cookie for that state.
    const victimLink = await reachCallback(gateway.url, new CookieJar());
    const victim = await visitCallback(victimLink, new CookieJar());
    expect(victim.status).toBe(400);
    expect(errorCode(victim.body)).toBe('sign_in_state_invalid');
  });
});

describe('the provider’s keys', () => {
  it('does not fetch the keys in a loop for a flood of unknown kids (jose’s cooldown)', async () => {
    const genuine = await signInWithForgery(async (_claims, token) => token);
    expect(genuine.answer.status).toBe(302);
    const before = provider.jwksRequests;
    for (let index = 0; index < 12; index++) {
      const stranger = await generateKeyPair('ES256');
      await expectRefusedToken(
        await signInWithForgery((claims) =>
          new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: `flood-${index}` }).sign(stranger.privateKey),
        ),
      );
    }
    // At most one refetch (if the 30-second cooldown since the last fetch happened to pass), never one per token.
    expect(provider.jwksRequests - before).toBeLessThanOrEqual(1);
  });

  it('fetches a rotated key once and signs people in with it', async () => {
    const rotating = await startTestIdentityProvider();
    const rotatingGateway = await startGatewayFor(rotating, { GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member' });
    try {
      // The cooldown shortened so the rotation is seen at once rather than up to 30 seconds after the last fetch.
      rotatingGateway.host.services.signInTuning = { jwksCooldownMs: 0 };
      rotating.people.set('sub-rory', { email: 'rory@example.com', email_verified: true, name: 'Rory', groups: [] });
      rotating.signInAs('sub-rory');
      expect((await signIn(rotatingGateway.url)).answer.status).toBe(302);
      expect(rotating.jwksRequests).toBe(1);

      const next = await generateKeyPair('RS256', { extractable: true });
      const nextPublic = { ...(await exportJWK(next.publicKey)), kid: 'test-key-2', alg: 'RS256', use: 'sig' };
      rotating.publishedKeys = { keys: [rotating.signingKey.publicJwk, nextPublic] };
      rotating.rewriteIdToken = async (token) =>
        new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: 'RS256', kid: 'test-key-2' }).sign(next.privateKey);
      for (let round = 0; round < 3; round++) {
        rotating.signInAs('sub-rory');
        expect((await signIn(rotatingGateway.url)).answer.status).toBe(302);
      }
      expect(rotating.jwksRequests).toBe(2);
    } finally {
      await rotatingGateway.close();
      await rotating.close();
    }
  });
});

describe('settings', () => {
  it('refuses an unknown person by default, and signs in one an administrator invited by e-mail', async () => {
    const strict = await startTestIdentityProvider();
    // No admin groups configured (a provider without a groups claim, such as Google): the member's role decides.
    const strictGateway = await startGatewayFor(strict, { GATEWAY_OIDC_ADMIN_GROUPS: '' });
    try {
      strict.people.set('sub-new', { email: 'nina@example.com', email_verified: true, name: 'Nina', groups: [] });
      strict.signInAs('sub-new');
      const refused = await signIn(strictGateway.url);
      expect(refused.answer.status).toBe(403);
      expect(errorCode(refused.answer.body)).toBe('unknown_person');

      await strictGateway.admin.call('POST', '/members', { name: 'Nina@example.com', role: 'admin', policy: {} });
      strict.signInAs('sub-new');
      const invited = await signIn(strictGateway.url);
      expect(invited.answer.status).toBe(302);
      const state = await fetch(`${strictGateway.url}/app/auth/session`, { headers: { cookie: invited.jar.header() } });
      expect(await state.json()).toMatchObject({ signedIn: true, member: { name: 'Nina@example.com', role: 'admin' } });
    } finally {
      await strictGateway.close();
      await strict.close();
    }
  });

  it('without an issuer, sign-in does not exist: 404 sso_not_configured, and the console is told so', async () => {
    const plain = await startTestGateway();
    try {
      const login = await fetch(`${plain.url}/app/auth/login`, { redirect: 'manual' });
      expect(login.status).toBe(404);
      expect(((await login.json()) as { error: { code: string } }).error.code).toBe('sso_not_configured');
      const session = await fetch(`${plain.url}/app/auth/session`);
      expect(await session.json()).toEqual({ sso: { enabled: false }, signedIn: false });
    } finally {
      await plain.close();
    }
  });
});
