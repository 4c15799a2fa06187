import * as z from '../validation/zod.ts';

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
  GATEWAY_BODY_LIMIT_BYTES: z._default(z.coerce.number().check(z.int(), z.positive()), 2_097_152),
  /** Output allowance reserved when neither the request, the model nor the policy states a maximum. */
  GATEWAY_DEFAULT_OUTPUT_CAP: z._default(z.coerce.number().check(z.int(), z.positive()), 4096),
  /** How long key, member and connection lookups are cached in memory. Revocation does not wait for it. */
  GATEWAY_CACHE_TTL_MS: z._default(z.coerce.number().check(z.int(), z.nonnegative()), 30_000),
  GATEWAY_TABLE_CONTROL: z.string().check(z.minLength(3)),
  GATEWAY_TABLE_USAGE: z.string().check(z.minLength(3)),
  GATEWAY_TABLE_ROLLUPS: z.string().check(z.minLength(3)),
  /** Usage records of the earlier engine generation (0.1), kept apart from gateway records (spec §9). */
  GATEWAY_TABLE_LEGACY_USAGE: z.string().check(z.minLength(3)),
  /** Set by the local host to its embedded store; absent on AWS. */
  GATEWAY_DYNAMODB_ENDPOINT: z.optional(z.url()),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
  GATEWAY_SECRET_STORE: z._default(z.enum(['file', 'secrets-manager']), 'secrets-manager'),
  /** The local secret file (mode 0600), with `GATEWAY_SECRET_STORE=file`. */
  GATEWAY_SECRET_FILE: z.optional(z.string()),
  /** Name prefix of the Secrets Manager secrets that hold provider credentials. */
  GATEWAY_SECRET_PREFIX: z._default(z.string(), 'model-gateway/dev'),
  /** CloudWatch namespace of the EMF metrics; set by the stack, absent on the local host, which emits none. */
  GATEWAY_METRICS_NAMESPACE: z.optional(z.string().check(z.minLength(1))),
});

export type GatewayConfig = ReturnType<typeof toConfig>;

function toConfig(env: z.infer<typeof environmentSchema>) {
  if (!env.GATEWAY_UPSTREAM_PREFIXES.includes('lb')) {
    throw new Error('GATEWAY_UPSTREAM_PREFIXES must include the default upstream "lb"');
  }
  if (env.GATEWAY_SECRET_STORE === 'file' && !env.GATEWAY_SECRET_FILE) {
    throw new Error('GATEWAY_SECRET_FILE is required when GATEWAY_SECRET_STORE is "file"');
  }
  return {
    keyTag: env.GATEWAY_KEY_TAG,
    holderTag: env.GATEWAY_HOLDER_TAG,
    upstreamPrefixes: env.GATEWAY_UPSTREAM_PREFIXES,
    upstreamTimeoutMs: env.GATEWAY_UPSTREAM_TIMEOUT_MS,
    bodyLimitBytes: env.GATEWAY_BODY_LIMIT_BYTES,
    defaultOutputCap: env.GATEWAY_DEFAULT_OUTPUT_CAP,
    cacheTtlMs: env.GATEWAY_CACHE_TTL_MS,
    /** A lease outlives the longest request the deadline allows, so only a dead request's lease expires. */
    maxRequestMs: env.GATEWAY_MAX_REQUEST_MS,
    leaseTtlMs: env.GATEWAY_MAX_REQUEST_MS + 120_000,
    tables: {
      control: env.GATEWAY_TABLE_CONTROL,
      usage: env.GATEWAY_TABLE_USAGE,
      rollups: env.GATEWAY_TABLE_ROLLUPS,
      legacyUsage: env.GATEWAY_TABLE_LEGACY_USAGE,
    },
    dynamoEndpoint: env.GATEWAY_DYNAMODB_ENDPOINT,
    metricsNamespace: env.GATEWAY_METRICS_NAMESPACE,
    region: env.AWS_REGION,
    secretStore:
      env.GATEWAY_SECRET_STORE === 'file'
        ? ({ kind: 'file', path: env.GATEWAY_SECRET_FILE as string } as const)
        : ({ kind: 'secrets-manager', prefix: env.GATEWAY_SECRET_PREFIX } as const),
  };
}

export function parseGatewayConfig(environment: Record<string, string | undefined>): GatewayConfig {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`invalid gateway configuration: ${problems}`);
  }
  return toConfig(parsed.data);
}
