import { storeEngineNames } from '../store/store-port.ts';
import * as z from '../validation/zod.ts';
import { parseTelemetrySettings, type TelemetrySettings } from './telemetry-config.ts';

const commaList = z.pipe(
  z.string(),
  z.transform((value: string) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  ),
);

const tag = z.string().check(z.regex(/^[a-z0-9]{1,16}$/, 'a tag is 1-16 lowercase letters or digits'));

/**
 * Everything configurable, parsed once at start from the environment the host provides. Nothing in shared/
 * reads process.env: hosts pass the environment to `parseGatewayConfig`.
 */
const environmentSchema = z.object({
  GATEWAY_KEY_TAG: z._default(tag, 'gw'),
  GATEWAY_HOLDER_TAG: z._default(tag, 'hold'),
  /** The valid upstream prefixes, in order; `lb` is the default upstream. Production lists 17. */
  GATEWAY_UPSTREAM_PREFIXES: z._default(commaList, ['lb', 'lb2', 'alpha', 'beta', 'gamma']),
  /** How long the gateway waits for an upstream's response headers, and then between stream chunks. */
  GATEWAY_UPSTREAM_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 300_000),
  /**
   * The longest a request may run, stream included, from admission to its end (504 after it): inside Lambda's
   * 15 minutes, so settlement still runs, and the bound a concurrency lease must outlast.
   */
  GATEWAY_MAX_REQUEST_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 840_000),
  /**
   * Whether connections may reach loopback and private addresses: `allowed` on the one-machine host (its own
   * network), `marked-only` elsewhere, where only a connection an administrator marked as reaching a private network
   * may. Link-local and metadata addresses are refused either way (shared/net/upstream-address.ts).
   */
  GATEWAY_PRIVATE_UPSTREAMS: z._default(z.enum(['allowed', 'marked-only']), 'marked-only'),
  GATEWAY_BODY_LIMIT_BYTES: z._default(z.coerce.number().check(z.int(), z.positive()), 2_097_152),
  /** Output allowance reserved when neither the request, the model nor the policy states a maximum. */
  GATEWAY_DEFAULT_OUTPUT_CAP: z._default(z.coerce.number().check(z.int(), z.positive()), 4096),
  /** Live keys a member may hold through `/me` (their own page); administrators are not bound by it. */
  GATEWAY_MAX_KEYS_PER_MEMBER: z._default(z.coerce.number().check(z.int(), z.positive(), z.lte(1000)), 10),
  /** How long key, member and connection lookups are cached in memory. Revocation does not wait for it. */
  GATEWAY_CACHE_TTL_MS: z._default(z.coerce.number().check(z.int(), z.nonnegative()), 30_000),
  /**
   * On one machine, the longest a settled request waits before the in-process folder adds it to the rollups (on
   * AWS the records stream folds them). The usage API flushes first, so its answers on one machine are current.
   */
  GATEWAY_ROLLUP_FLUSH_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 1_000),
  /** The store engine of `npm start`; the stack's functions always run on `dynamodb`. */
  GATEWAY_STORE: z._default(z.enum(storeEngineNames), 'sqlite'),
  /**
   * The `dynamodb` engine's tables: the stack names them; on one machine they default to the local names. All
   * four or none.
   */
  GATEWAY_TABLE_CONTROL: z.optional(z.string().check(z.minLength(3))),
  GATEWAY_TABLE_USAGE: z.optional(z.string().check(z.minLength(3))),
  GATEWAY_TABLE_ROLLUPS: z.optional(z.string().check(z.minLength(3))),
  /** Usage records of the earlier engine generation (0.1), kept apart from gateway records (spec §9). */
  GATEWAY_TABLE_LEGACY_USAGE: z.optional(z.string().check(z.minLength(3))),
  /**
   * The records table of the earlier DynamoDB layout, which `usage migrate-earlier-records` carries into the current
   * one: the stack names it; on one machine it defaults to the local name; absent, there is nothing to carry.
   */
  GATEWAY_TABLE_EARLIER_USAGE: z.optional(z.string().check(z.minLength(3))),
  /** Where the `dynamodb` engine sends its calls when not to AWS (dynalite, DynamoDB Local, any endpoint). */
  GATEWAY_DYNAMODB_ENDPOINT: z.optional(z.url()),
  /**
   * SQLite's `synchronous` setting: `normal` (the default) survives any crash of the gateway's process without
   * losing a committed write; `full` also survives a power loss or an operating-system crash, at one disk flush
   * per transaction.
   */
  GATEWAY_SQLITE_SYNCHRONOUS: z._default(z.enum(['normal', 'full']), 'normal'),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
  GATEWAY_SECRET_STORE: z._default(z.enum(['file', 'secrets-manager']), 'secrets-manager'),
  /** The local secret file (mode 0600), with `GATEWAY_SECRET_STORE=file`. */
  GATEWAY_SECRET_FILE: z.optional(z.string()),
  /** Name prefix of the Secrets Manager secrets that hold provider credentials. */
  GATEWAY_SECRET_PREFIX: z._default(z.string(), 'model-gateway/dev'),
  /**
   * Ids of the secrets holding the origin secret CloudFront adds to each request (shared/http/origin-check.ts);
   * set by the stack, absent on the local host, which has no CloudFront in front and checks nothing.
   */
  GATEWAY_ORIGIN_SECRET_IDS: z.optional(commaList),
  /**
   * The address clients reach the gateway at, when it is not the one requests arrive with (a custom domain in
   * front of the distribution, a proxy in front of `npm start`): the holder policy record's `endpoint`.
   */
  GATEWAY_PUBLIC_URL: z.optional(z.url({ protocol: /^https?$/ })),
  /**
   * Allowance alerts (shared/alerts/): the shares of the daily allowance, in percent, whose first crossing in a UTC
   * day raises an alert; none turns allowance alerts off.
   */
  GATEWAY_ALERT_THRESHOLDS: z._default(
    z.pipe(
      z.pipe(
        commaList,
        z.transform((items: string[]) => items.map(Number)),
      ),
      z.array(z.number().check(z.int(), z.positive(), z.lte(1000))).check(z.maxLength(10)),
    ),
    [80, 100],
  ),
  /** On one machine: where alerts are POSTed, signed with the secret (HMAC-SHA256). */
  GATEWAY_ALERT_WEBHOOK_URL: z.optional(z.url({ protocol: /^https?$/ })),
  GATEWAY_ALERT_WEBHOOK_SECRET: z.optional(z.string().check(z.minLength(16))),
  /** On AWS: the EventBridge bus alerts go to, with the source `model-gateway.<stage>`; set by the stack. */
  GATEWAY_ALERT_EVENT_BUS: z.optional(z.string().check(z.minLength(1))),
  GATEWAY_ALERT_EVENT_SOURCE: z._default(z.string().check(z.minLength(1)), 'model-gateway'),
  /** How long an undelivered alert is retried, counted from when it was raised, and the first backoff. */
  GATEWAY_ALERT_RETRY_WINDOW_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 15 * 60_000),
  GATEWAY_ALERT_RETRY_FIRST_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 1_000),
  /** CloudWatch namespace of the EMF metrics; set by the stack, absent on the local host, which emits none. */
  GATEWAY_METRICS_NAMESPACE: z.optional(z.string().check(z.minLength(1))),
  /**
   * Sign-in with the team's OpenID Connect provider (docs/sign-in.md). Without an issuer there is none: keys are the
   * only way in, as before. Its discovery document and keys are fetched from the issuer.
   */
  GATEWAY_OIDC_ISSUER: z.optional(z.url({ protocol: /^https?$/ })),
  GATEWAY_OIDC_CLIENT_ID: z.optional(z.string().check(z.minLength(1))),
  /** The client secret, where the provider issues one (one machine); on AWS `_SECRET_NAME` names it instead. */
  GATEWAY_OIDC_CLIENT_SECRET: z.optional(z.string().check(z.minLength(1))),
  /** The secret store's name of the client secret (Secrets Manager on AWS), read when sign-in first needs it. */
  GATEWAY_OIDC_CLIENT_SECRET_NAME: z.optional(z.string().check(z.minLength(1))),
  /**
   * The client the admin CLI's device flow (RFC 8628, `login --device`) signs in with, where the provider wants a
   * public (native) client for it rather than the gateway's web client (Okta, Entra ID); unset, the gateway's own.
   */
  GATEWAY_OIDC_DEVICE_CLIENT_ID: z.optional(z.string().check(z.minLength(1))),
  GATEWAY_OIDC_SCOPES: z._default(z.string().check(z.regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/)), 'openid email profile'),
  /** The ID token claim that lists the person's groups. */
  GATEWAY_OIDC_GROUPS_CLAIM: z._default(z.string().check(z.minLength(1)), 'groups'),
  /**
   * The claim that says the provider verified the e-mail address: `email_verified` (OpenID Connect's, sent by Okta,
   * Google, Cognito, Keycloak, Auth0); Microsoft Entra ID sends none by default, and its optional claim `xms_edov`
   * (e-mail domain owner verified) stands for it there (docs/sign-in.md).
   */
  GATEWAY_OIDC_EMAIL_VERIFIED_CLAIM: z._default(z.string().check(z.minLength(1)), 'email_verified'),
  /**
   * Groups whose people are administrators; everyone else who signs in is a member. Empty (providers without a
   * groups claim, such as Google): the member's own role decides, as an administrator set it.
   */
  GATEWAY_OIDC_ADMIN_GROUPS: z._default(commaList, []),
  /**
   * Groups whose people may sign in at all (administrators' groups count too); empty: anyone the other checks let
   * in. A member whose person is in none of them at a sign-in is disabled (docs/sign-in.md, "Removed people").
   */
  GATEWAY_OIDC_ALLOWED_GROUPS: z._default(commaList, []),
  /** E-mail domains that may sign in; empty: any verified address. */
  GATEWAY_OIDC_EMAIL_DOMAINS: z._default(commaList, []),
  /** A person no member stands for yet: refused, or made a member with the team's default limits. */
  GATEWAY_OIDC_UNKNOWN_PEOPLE: z._default(z.enum(['refuse', 'create-member']), 'refuse'),
  /** How long a session (console or CLI) lasts. */
  GATEWAY_SESSION_HOURS: z._default(z.coerce.number().check(z.positive(), z.lte(24 * 30)), 12),
});

export type GatewayConfig = ReturnType<typeof toConfig> & { telemetry: TelemetrySettings | undefined };

function toConfig(env: z.infer<typeof environmentSchema>) {
  if (!env.GATEWAY_UPSTREAM_PREFIXES.includes('lb')) {
    throw new Error('GATEWAY_UPSTREAM_PREFIXES must include the default upstream "lb"');
  }
  const tableNames = [
    env.GATEWAY_TABLE_CONTROL,
    env.GATEWAY_TABLE_USAGE,
    env.GATEWAY_TABLE_ROLLUPS,
    env.GATEWAY_TABLE_LEGACY_USAGE,
  ] as const;
  const namedTables = tableNames.filter((name) => name !== undefined).length;
  if (namedTables !== 0 && namedTables !== tableNames.length) {
    throw new Error('GATEWAY_TABLE_CONTROL, _USAGE, _ROLLUPS and _LEGACY_USAGE are set together or not at all');
  }
  if (env.GATEWAY_SECRET_STORE === 'file' && !env.GATEWAY_SECRET_FILE) {
    throw new Error('GATEWAY_SECRET_FILE is required when GATEWAY_SECRET_STORE is "file"');
  }
  if (env.GATEWAY_ALERT_WEBHOOK_URL !== undefined && env.GATEWAY_ALERT_WEBHOOK_SECRET === undefined) {
    throw new Error('GATEWAY_ALERT_WEBHOOK_SECRET (16 characters or more) is required with GATEWAY_ALERT_WEBHOOK_URL');
  }
  return {
    signIn: readSignIn(env),
    keyTag: env.GATEWAY_KEY_TAG,
    holderTag: env.GATEWAY_HOLDER_TAG,
    upstreamPrefixes: env.GATEWAY_UPSTREAM_PREFIXES,
    upstreamTimeoutMs: env.GATEWAY_UPSTREAM_TIMEOUT_MS,
    bodyLimitBytes: env.GATEWAY_BODY_LIMIT_BYTES,
    privateUpstreams: env.GATEWAY_PRIVATE_UPSTREAMS,
    defaultOutputCap: env.GATEWAY_DEFAULT_OUTPUT_CAP,
    maxKeysPerMember: env.GATEWAY_MAX_KEYS_PER_MEMBER,
    cacheTtlMs: env.GATEWAY_CACHE_TTL_MS,
    /** A lease outlives the longest request the deadline allows, so only a dead request's lease expires. */
    maxRequestMs: env.GATEWAY_MAX_REQUEST_MS,
    leaseTtlMs: env.GATEWAY_MAX_REQUEST_MS + 120_000,
    rollupFlushMs: env.GATEWAY_ROLLUP_FLUSH_MS,
    storeEngine: env.GATEWAY_STORE,
    /** The `dynamodb` engine's table names, when the environment gives them. */
    tables:
      namedTables === 0
        ? undefined
        : {
            control: tableNames[0] as string,
            usage: tableNames[1] as string,
            rollups: tableNames[2] as string,
            legacyUsage: tableNames[3] as string,
          },
    /** The earlier layout's records table, when the environment names the tables; the local host knows its own. */
    earlierUsageTable: env.GATEWAY_TABLE_EARLIER_USAGE,
    dynamoEndpoint: env.GATEWAY_DYNAMODB_ENDPOINT,
    sqliteSynchronous: env.GATEWAY_SQLITE_SYNCHRONOUS,
    metricsNamespace: env.GATEWAY_METRICS_NAMESPACE,
    alerts: {
      /** Ascending shares of the allowance, each once. */
      thresholds: [...new Set(env.GATEWAY_ALERT_THRESHOLDS)].sort((a, b) => a - b).map((percent) => percent / 100),
      webhook:
        env.GATEWAY_ALERT_WEBHOOK_URL === undefined
          ? undefined
          : { url: env.GATEWAY_ALERT_WEBHOOK_URL, secret: env.GATEWAY_ALERT_WEBHOOK_SECRET as string },
      eventBridge:
        env.GATEWAY_ALERT_EVENT_BUS === undefined
          ? undefined
          : { busName: env.GATEWAY_ALERT_EVENT_BUS, source: env.GATEWAY_ALERT_EVENT_SOURCE },
      retry: {
        retryWindowMs: env.GATEWAY_ALERT_RETRY_WINDOW_MS,
        firstBackoffMs: env.GATEWAY_ALERT_RETRY_FIRST_MS,
        maxBackoffMs: Math.max(env.GATEWAY_ALERT_RETRY_FIRST_MS, 60_000),
      },
    },
    originSecretIds: env.GATEWAY_ORIGIN_SECRET_IDS,
    /** Only the origin of the setting: `endpoint` is a host, never a path. */
    publicUrl: env.GATEWAY_PUBLIC_URL === undefined ? undefined : new URL(env.GATEWAY_PUBLIC_URL).origin,
    region: env.AWS_REGION,
    secretStore:
      env.GATEWAY_SECRET_STORE === 'file'
        ? ({ kind: 'file', path: env.GATEWAY_SECRET_FILE as string } as const)
        : ({ kind: 'secrets-manager', prefix: env.GATEWAY_SECRET_PREFIX } as const),
  };
}

/** The sign-in settings, or undefined when no issuer is configured (then nothing about sign-in exists). */
function readSignIn(env: z.infer<typeof environmentSchema>) {
  if (env.GATEWAY_OIDC_ISSUER === undefined) return undefined;
  if (env.GATEWAY_OIDC_CLIENT_ID === undefined) {
    throw new Error('GATEWAY_OIDC_CLIENT_ID is required when GATEWAY_OIDC_ISSUER is set');
  }
  if (env.GATEWAY_OIDC_CLIENT_SECRET !== undefined && env.GATEWAY_OIDC_CLIENT_SECRET_NAME !== undefined) {
    throw new Error('set GATEWAY_OIDC_CLIENT_SECRET or GATEWAY_OIDC_CLIENT_SECRET_NAME, not both');
  }
  const clientSecret: SignInClientSecret =
    env.GATEWAY_OIDC_CLIENT_SECRET !== undefined
      ? { kind: 'value', value: env.GATEWAY_OIDC_CLIENT_SECRET }
      : env.GATEWAY_OIDC_CLIENT_SECRET_NAME !== undefined
        ? { kind: 'secret-store', name: env.GATEWAY_OIDC_CLIENT_SECRET_NAME }
        : { kind: 'none' };
  return {
    issuer: env.GATEWAY_OIDC_ISSUER,
    clientId: env.GATEWAY_OIDC_CLIENT_ID,
    clientSecret,
    deviceClientId: env.GATEWAY_OIDC_DEVICE_CLIENT_ID,
    scopes: env.GATEWAY_OIDC_SCOPES,
    emailVerifiedClaim: env.GATEWAY_OIDC_EMAIL_VERIFIED_CLAIM,
    groupsClaim: env.GATEWAY_OIDC_GROUPS_CLAIM,
    adminGroups: env.GATEWAY_OIDC_ADMIN_GROUPS,
    allowedGroups: env.GATEWAY_OIDC_ALLOWED_GROUPS,
    emailDomains: env.GATEWAY_OIDC_EMAIL_DOMAINS.map((domain) => domain.toLowerCase().replace(/^@/, '')),
    unknownPeople: env.GATEWAY_OIDC_UNKNOWN_PEOPLE,
    sessionMs: Math.round(env.GATEWAY_SESSION_HOURS * 3_600_000),
  };
}

/** Where the OIDC client secret comes from: none (a public client, PKCE alone), the environment, or the secret store. */
export type SignInClientSecret =
  | { kind: 'none' }
  | { kind: 'value'; value: string }
  | { kind: 'secret-store'; name: string };

export type SignInConfig = NonNullable<GatewayConfig['signIn']>;

export function parseGatewayConfig(environment: Record<string, string | undefined>): GatewayConfig {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`invalid gateway configuration: ${problems}`);
  }
  return { ...toConfig(parsed.data), telemetry: parseTelemetrySettings(environment) };
}
