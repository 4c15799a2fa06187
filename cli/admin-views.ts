import * as z from '../shared/validation/zod.ts';

/**
 * The CLI's own reading of the admin API's answers. It shares no code with the server (the CLI speaks HTTP
 * only), so the schemas are tolerant: only the fields the tables show, nullable where the server may omit them,
 * and plain strings where the server may add states later.
 */

const policySchema = z.nullish(
  z.object({
    dailyTokens: z.nullish(z.number()),
    rpm: z.nullish(z.number()),
    concurrency: z.nullish(z.number()),
    maxOutput: z.nullish(z.number()),
    providers: z.nullish(z.array(z.string())),
    models: z.nullish(z.array(z.string())),
  }),
);
export type PolicyView = z.infer<typeof policySchema>;
export const policyViewSchema = policySchema;

export const memberSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: z.string(),
  status: z.string(),
  policy: policySchema,
  createdAt: z.nullish(z.string()),
  holdings: z.nullish(z.object({ usd: z.number(), at: z.string() })),
});
export type MemberView = z.infer<typeof memberSchema>;

export const keySchema = z.object({
  id: z.string(),
  memberId: z.string(),
  name: z.nullish(z.string()),
  state: z.string(),
  keyPrefix: z.nullish(z.string()),
  expiresAt: z.nullish(z.string()),
  policy: policySchema,
  createdAt: z.nullish(z.string()),
  rotatedAt: z.nullish(z.string()),
});
export type KeyView = z.infer<typeof keySchema>;

/** The answer to issuing or rotating a key: the only time the secret is ever seen. */
export const issuedKeySchema = z.extend(keySchema, { key: z.string() });
export type IssuedKeyView = z.infer<typeof issuedKeySchema>;

export const connectionSchema = z.object({
  id: z.string(),
  provider: z.string(),
  wire: z.string(),
  baseUrl: z.string(),
  models: z.nullish(z.array(z.string())),
  modelLimits: z.nullish(
    z.array(
      z.object({
        id: z.string(),
        contextWindow: z.nullish(z.number()),
        maxOutput: z.nullish(z.number()),
        inputModalities: z.nullish(z.array(z.string())),
      }),
    ),
  ),
  upstream: z.nullish(z.string()),
  privateNetwork: z.nullish(z.boolean()),
  enabled: z.boolean(),
  createdAt: z.nullish(z.string()),
});
export type ConnectionView = z.infer<typeof connectionSchema>;

const probeSchema = z.object({
  call: z.string(),
  method: z.string(),
  url: z.string(),
  model: z.nullish(z.string()),
  ok: z.boolean(),
  status: z.nullish(z.number()),
  latencyMs: z.number(),
  failure: z.nullish(z.object({ code: z.string(), reason: z.string() })),
  models: z.nullish(z.object({ count: z.number(), ids: z.array(z.string()), more: z.boolean() })),
});
export type ConnectionProbeView = z.infer<typeof probeSchema>;

/** The answer of `connection test`: what each call to the upstream came to. */
export const connectionTestSchema = z.object({
  connection: z.object({ id: z.string(), provider: z.string(), wire: z.string(), baseUrl: z.string() }),
  ok: z.boolean(),
  probes: z.array(probeSchema),
  notListedUpstream: z.nullish(z.array(z.string())),
});
export type ConnectionTestView = z.infer<typeof connectionTestSchema>;
