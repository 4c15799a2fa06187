import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import * as client from 'openid-client';
import type { SignInConfig } from '../config/gateway-config.ts';
import type { GatewayServices } from '../config/gateway-services.ts';

/**
 * The gateway as a client of the team's OpenID provider: openid-client (discovery, the authorization code grant
 * with PKCE, state, nonce, iss/aud/exp/iat/azp) and jose for the ID token's signature against the provider's
 * published keys. Both check the token: openid-client does not verify the signature of an ID token it received
 * straight from the token endpoint over TLS (the specification allows that), and the gateway wants the signature
 * checked all the same, so a token endpoint answer that was tampered with is refused too. Loaded only by the sign-in
 * routes (a dynamic import), so the admin and usage paths do not carry these libraries.
 */
export interface OidcRuntime {
  configuration: client.Configuration;
  /**
   * The client the CLI's device flow uses (the device client where one is configured, else the gateway's own), or
   * undefined when the provider's discovery offers no `device_authorization_endpoint`.
   */
  device: { configuration: client.Configuration; clientId: string } | undefined;
  /** jose's remote key set: keys cached, an unknown `kid` refetches at most once per cooldown. */
  keys: ReturnType<typeof createRemoteJWKSet>;
  /** Asymmetric algorithms the provider says it signs ID tokens with; `none` and HMAC are never accepted. */
  algorithms: string[];
}

/** The one key-set cooldown (jose's default): a flood of unknown `kid`s fetches the keys once per 30 seconds. */
export const defaultJwksCooldownMs = 30_000;

/** How old an ID token may be at the callback, and how far the provider's clock may be from the gateway's. */
const idTokenMaxAgeSeconds = 600;
const clockToleranceSeconds = 60;

const asymmetricAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

const runtimes = new WeakMap<GatewayServices, Promise<OidcRuntime>>();

/** Discovery once per process (a failed one is tried again by the next sign-in). */
export function oidcRuntime(services: GatewayServices, signIn: SignInConfig): Promise<OidcRuntime> {
  let runtime = runtimes.get(services);
  if (!runtime) {
    runtime = discover(services, signIn);
    runtimes.set(services, runtime);
    runtime.catch(() => runtimes.delete(services));
  }
  return runtime;
}

/** Plain http only to a provider on this machine (tests, a local Keycloak); anywhere else it must be https. */
function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

async function discover(services: GatewayServices, signIn: SignInConfig): Promise<OidcRuntime> {
  const issuer = new URL(signIn.issuer);
  const secret =
    signIn.clientSecret.kind === 'value'
      ? signIn.clientSecret.value
      : signIn.clientSecret.kind === 'secret-store'
        ? await services.secrets.read(signIn.clientSecret.name)
        : undefined;
  const insecure = issuer.protocol === 'http:' && isLoopback(issuer);
  const configuration = await client.discovery(
    issuer,
    signIn.clientId,
    secret,
    secret === undefined ? client.None() : client.ClientSecretBasic(secret),
    insecure ? { execute: [client.allowInsecureRequests] } : undefined,
  );
  const metadata = configuration.serverMetadata();
  if (!metadata.jwks_uri) throw new Error('the provider publishes no jwks_uri');
  const offered = metadata.id_token_signing_alg_values_supported ?? ['RS256'];
  let device: OidcRuntime['device'];
  if (metadata.device_authorization_endpoint) {
    if (signIn.deviceClientId === undefined) {
      device = { configuration, clientId: signIn.clientId };
    } else {
      // A public client: no secret, the device code alone (RFC 8628 §3.4).
      const deviceConfiguration = new client.Configuration(metadata, signIn.deviceClientId, undefined, client.None());
      if (insecure) client.allowInsecureRequests(deviceConfiguration);
      device = { configuration: deviceConfiguration, clientId: signIn.deviceClientId };
    }
  }
  return {
    configuration,
    device,
    keys: createRemoteJWKSet(new URL(metadata.jwks_uri), {
      cooldownDuration: services.signInTuning?.jwksCooldownMs ?? defaultJwksCooldownMs,
    }),
    algorithms: offered.filter((algorithm) => asymmetricAlgorithms.includes(algorithm)),
  };
}

/** The ID token's claims once its signature, issuer, audience and times check out (jose), or a thrown reason. */
export async function verifyIdTokenSignature(
  runtime: OidcRuntime,
  signIn: SignInConfig,
  idToken: string,
  /** The client the token was issued to: the gateway's own, or the device client for the CLI's device flow. */
  audience = signIn.clientId,
): Promise<JWTPayload> {
  const { payload } = await jwtVerify(idToken, runtime.keys, {
    issuer: runtime.configuration.serverMetadata().issuer,
    audience,
    algorithms: runtime.algorithms,
    requiredClaims: ['sub', 'iat', 'exp'],
    // An ID token arrives at the callback moments after it was issued: one issued in the future (beyond a minute of
    // clock difference) or long ago is refused.
    maxTokenAge: idTokenMaxAgeSeconds,
    clockTolerance: clockToleranceSeconds,
  });
  return payload;
}
