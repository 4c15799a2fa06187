import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

const deviceCodeGrant = 'urn:ietf:params:oauth:grant-type:device_code';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A person of the test provider: the claims its ID tokens carry about them. */
export interface TestPerson {
  email: string;
  email_verified: boolean;
  name: string;
  groups: string[];
}

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The private signing key whose public half the provider publishes (tests forge tokens with it or others). */
  signingKey: { privateKey: SigningKey; kid: string; publicJwk: JWK };
  people: Map<string, TestPerson>;
  /** Who signs in at the provider's next login prompt (the "interaction" a test drives). */
  signInAs(subject: string): void;
  /** The provider's next login prompt refuses (`error=access_denied`, as for a person it no longer lets in). */
  refuseNextSignIn(): void;
  /** Replaces the ID token of the next token endpoint answers (forgeries), until set back to undefined. */
  rewriteIdToken: ((genuine: string) => Promise<string>) | undefined;
  /** Replaces the key set the provider publishes (a key rotation), until set back to undefined. */
  publishedKeys: { keys: JWK[] } | undefined;
  /** How many times the key set (jwks_uri) was fetched. */
  jwksRequests: number;
  /** Registers the gateway's callback; the provider answers only once this is called. */
  registerGateway(redirectUri: string): void;
  close(): Promise<void>;
}

/**
 * panva's oidc-provider (OpenID Certified), in process on a loopback port: discovery, authorization endpoint with
 * PKCE, token endpoint, JWKS, real signed ID tokens. Its login "interaction" is a tiny one the test drives: the
 * next login signs in whoever `signInAs` named, and consent is granted for the gateway. Two hooks on the real
 * endpoints let a test play a hostile or rotating provider: the token endpoint's ID token can be swapped for a
 * forged one, and the published key set replaced; the key set's fetches are counted.
 */
export interface TestIdentityProviderOptions {
  /** Offer the device flow (RFC 8628): discovery then has a `device_authorization_endpoint`. */
  deviceFlow?: boolean;
  /** With the device flow: a public client of its own for it (as Okta and Entra ID want), else the gateway's. */
  deviceClientId?: string;
}

export async function startTestIdentityProvider(
  options: TestIdentityProviderOptions = {},
): Promise<TestIdentityProvider> {
  let provider: Provider | undefined;
  let nextSubject: string | undefined;
  let refuseNext = false;
  const server: Server = createServer((request, response) => {
    if (!provider) {
      response.writeHead(503).end();
      return;
    }
    if (request.url?.startsWith('/interaction/')) {
      const refuse = refuseNext;
      refuseNext = false;
      void finishInteraction(provider, refuse ? 'refuse' : nextSubject, request, response);
      return;
    }
    provider.callback()(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = 'test-key-1';
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const people = new Map<string, TestPerson>();

  const harness: TestIdentityProvider = {
    issuer,
    clientId: 'model-gateway',
    clientSecret: 'test-client-secret-for-the-gateway',
    signingKey: { privateKey, kid, publicJwk },
    people,
    signInAs(subject) {
      nextSubject = subject;
    },
    refuseNextSignIn() {
      refuseNext = true;
    },
    rewriteIdToken: undefined,
    publishedKeys: undefined,
    jwksRequests: 0,
    registerGateway(redirectUri) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: harness.clientId,
            client_secret: harness.clientSecret,
            redirect_uris: [redirectUri],
            grant_types: [
              'authorization_code',
              ...(options.deviceFlow && !options.deviceClientId ? [deviceCodeGrant] : []),
            ],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
          ...(options.deviceFlow && options.deviceClientId
            ? [
                {
                  client_id: options.deviceClientId,
                  application_type: 'native' as const,
                  grant_types: [deviceCodeGrant],
                  response_types: [],
                  redirect_uris: [],
                  token_endpoint_auth_method: 'none',
                },
              ]
            : []),
        ],
        jwks: { keys: [privateJwk] },
        cookies: { keys: ['test-provider-cookie-key'] },
        scopes: ['openid', 'email', 'profile', 'groups'],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
        // The ID token carries the scopes' claims, as Okta, Entra ID, Google and Cognito's do.
        conformIdTokenClaims: false,
        findAccount: async (_context: unknown, subject: string) => {
          const person = people.get(subject);
          return person ? { accountId: subject, claims: async () => ({ sub: subject, ...person }) } : undefined;
        },
        interactions: { url: (_context: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        // Consent is the gateway's to skip: the grant covers whatever the gateway asked for.
        loadExistingGrant: async (context: {
          oidc: { client: { clientId: string }; session: { accountId?: string }; params: { scope: string } };
        }) => {
          const accountId = context.oidc.session.accountId;
          if (!accountId || !provider) return undefined;
          const grant = new provider.Grant({ clientId: context.oidc.client.clientId, accountId });
          grant.addOIDCScope(context.oidc.params.scope);
          await grant.save();
          return grant;
        },
        features: { devInteractions: { enabled: false }, deviceFlow: { enabled: options.deviceFlow ?? false } },
        pkce: { required: () => true },
        ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
      });
      provider.use(async (context, next) => {
        if (context.path === '/jwks') harness.jwksRequests += 1;
        await next();
        if (context.path === '/jwks' && harness.publishedKeys) context.body = harness.publishedKeys;
        const answer = context.body as { id_token?: string } | undefined;
        if (context.path === '/token' && harness.rewriteIdToken && typeof answer?.id_token === 'string') {
          context.body = { ...answer, id_token: await harness.rewriteIdToken(answer.id_token) };
        }
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return harness;
}

async function finishInteraction(
  provider: Provider,
  subject: string | 'refuse' | undefined,
  request: Parameters<Provider['interactionFinished']>[0],
  response: Parameters<Provider['interactionFinished']>[1],
): Promise<void> {
  try {
    const interaction = await provider.interactionDetails(request, response);
    const accountId = interaction.session?.accountId;
    if (interaction.prompt.name === 'consent' && accountId !== undefined) {
      // The device flow asks for consent where `loadExistingGrant` had no scope to grant: granted as asked.
      const grant = new provider.Grant({ clientId: interaction.params.client_id, accountId });
      const { missingOIDCScope, missingOIDCClaims } = interaction.prompt.details;
      if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
      if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
      const grantId = await grant.save();
      await provider.interactionFinished(
        request,
        response,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
      return;
    }
    if (interaction.prompt.name !== 'login' || subject === undefined) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(`unexpected prompt ${interaction.prompt.name}`);
      return;
    }
    await provider.interactionFinished(
      request,
      response,
      subject === 'refuse'
        ? { error: 'access_denied', error_description: 'This person may not use the application.' }
        : { login: { accountId: subject } },
      {
        mergeWithLastSubmission: false,
      },
    );
  } catch (error) {
    response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
  }
}
