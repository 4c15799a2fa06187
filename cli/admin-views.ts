import * as z from 'zod';

/**
 * The CLI's own reading of the admin API's answers. It shares no code with the server (the CLI speaks HTTP
 * only), so the schemas are tolerant: only the fields the tables show, nullable where the server may omit them,
 * and plain strings where the server may add states later.
 */

const policySchema = z
  .object({
    dailyTokens: z.number().nullish(),
    rpm: z.number().nullish(),
    concurrency: z.number().nullish(),
    maxOutput: z.number().nullish(),
    providers: z.array(z.string()).nullish(),
    models: z.array(z.string()).nullish(),
  })
  .nullish();
export type PolicyView = z.infer<typeof policySchema>;

export const memberSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: z.string(),
  status: z.string(),
  policy: policySchema,
  createdAt: z.string().nullish(),
  holdings: z.object({ usd: z.number(), at: z.string() }).nullish(),
});
export type MemberView = z.infer<typeof memberSchema>;

export const keySchema = z.object({
  id: z.string(),
  memberId: z.string(),
  name: z.string().nullish(),
  state: z.string(),
  keyPrefix: z.string().nullish(),
  expiresAt: z.string().nullish(),
  policy: policySchema,
  createdAt: z.string().nullish(),
  rotatedAt: z.string().nullish(),
});
export type KeyView = z.infer<typeof keySchema>;

/** The answer to issuing or rotating a key: the only time the secret is ever seen. */
export const issuedKeySchema = keySchema.extend({ key: z.string() });
export type IssuedKeyView = z.infer<typeof issuedKeySchema>;

export const connectionSchema = z.object({
  id: z.string(),
  provider: z.string(),
  wire: z.string(),
  baseUrl: z.string(),
  models: z.array(z.string()).nullish(),
  upstream: z.string().nullish(),
  enabled: z.boolean(),
  createdAt: z.string().nullish(),
});
export type ConnectionView = z.infer<typeof connectionSchema>;
