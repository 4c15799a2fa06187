import { z } from 'zod';
import { upstreamWires } from '../http/wire.ts';
import { memberRoles, policySchema } from '../store/control-items.ts';

/** Bodies the admin API accepts: strict, so a misspelt field is an error rather than silently ignored. */
export const createMemberBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    role: z.enum(memberRoles).exclude(['holder']).default('member'),
    policy: policySchema.default({}),
  })
  .strict();

export const keyPolicySchema = policySchema.omit({ dailyTokens: true });

export const createKeyBody = z
  .object({
    memberId: z.string().min(1),
    name: z.string().trim().min(1).max(200).default('default'),
    expiresAt: z.iso.datetime({ offset: true }).nullish(),
    policy: keyPolicySchema.default({}),
  })
  .strict();

export const createConnectionBody = z
  .object({
    provider: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a provider name is lowercase letters, digits, ".", "_" or "-"'),
    wire: z.enum(upstreamWires),
    baseUrl: z.url({ protocol: /^https?$/ }),
    models: z.array(z.string().min(1).max(256)).default([]),
    upstream: z.string().min(1).default('lb'),
    apiKey: z.string().min(1).max(10_000),
  })
  .strict();
